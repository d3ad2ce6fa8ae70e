import { ApiPaths } from '@medshare/contracts/paths';
import type { Image } from '@medshare/contracts';
import { UPLOAD_DUPLICATE_CODE } from '@medshare/contracts/constants';
import { useCallback } from 'react';
import { API_BASE, ApiError, currentToken, endSessionIfExpired, toFieldErrors } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';
import { useAppDispatch } from '../../../lib/store';
import { recordActivity } from '../../../lib/user-activity';
import { IMAGE_LIST_TAG } from './list-images';

export type UploadInput = { file: File; caption: string; patientId?: string };
/**
 * What an upload answers: the image, the server's message and, for a DICOM instance this uploader
 * already stored for this patient, `duplicate` (200 with the image already stored; nothing stored twice).
 */
export type UploadResult = { data: Image; message: string | undefined; duplicate: boolean };

/**
 * POST /api/upload/image as multipart. XMLHttpRequest rather than fetch because only it reports
 * upload progress; the bearer header and the 401 rule are the same as in apiRequest.
 */
export function uploadImage(
  input: UploadInput,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<UploadResult> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    // Fields first: the server reads the stream in order and can refuse early.
    form.append('caption', input.caption);
    if (input.patientId) form.append('patientId', input.patientId);
    form.append('file', input.file, input.file.name);

    const xhr = new XMLHttpRequest();
    const token = currentToken();
    xhr.open('POST', `${API_BASE}${ApiPaths.uploadImage}`);
    xhr.setRequestHeader('Accept', 'application/json');
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (event) => {
      // An upload the user started is their work: a long import keeps them signed in (lib/user-activity.ts).
      recordActivity();
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    xhr.onerror = () => reject(new ApiError(0, ''));
    xhr.onabort = () => reject(new DOMException('Upload aborted', 'AbortError'));
    xhr.onload = () => {
      recordActivity();
      let body: { success?: boolean; message?: unknown; data?: unknown; errors?: unknown; code?: unknown } = {};
      try {
        body = xhr.responseText ? (JSON.parse(xhr.responseText) as typeof body) : {};
      } catch {
        body = {};
      }
      const message = typeof body.message === 'string' ? body.message : '';
      if (xhr.status >= 200 && xhr.status < 300 && body.success !== false) {
        onProgress(1);
        resolve({
          data: body.data as Image,
          message: message || undefined,
          duplicate: xhr.status === 200 && body.code === UPLOAD_DUPLICATE_CODE,
        });
        return;
      }
      void endSessionIfExpired(xhr.status, message, Boolean(token)).finally(() =>
        reject(
          new ApiError(
            xhr.status,
            message,
            toFieldErrors(body.errors),
            typeof body.code === 'string' ? body.code : undefined,
          ),
        ),
      );
    };
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}

/**
 * The upload as the form calls it. It stays this XMLHttpRequest call rather than an RTK Query
 * mutation: a base query has no upload progress to report, and a mutation's argument (a File and a
 * progress callback) would sit in the store's actions. What the mutation would do after it, it does
 * here: the new image makes the image list and the dashboard counts stale.
 */
export function useUploadImage() {
  const dispatch = useAppDispatch();
  return useCallback(
    async (input: UploadInput, onProgress: (fraction: number) => void, signal?: AbortSignal) => {
      const result = await uploadImage(input, onProgress, signal);
      dispatch(apiSlice.util.invalidateTags([IMAGE_LIST_TAG, 'UserStats', 'AdminSummary']));
      return result;
    },
    [dispatch],
  );
}
