import { ApiPaths, type User } from '@medshare/contracts';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/notify';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { api, paged, publicSettings } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { makeUser, renderWithProviders } from '../../../testing/test-utils';
import { UploadForm } from './upload-form';

/** XMLHttpRequest stand-in: records the request and lets the test drive progress and the answer. */
class FakeXhr {
  static last: FakeXhr | null = null;
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: FormData | null = null;
  status = 0;
  responseText = '';
  upload: { onprogress: ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = {
    onprogress: null,
  };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: FormData) {
    this.body = body;
  }
  abort() {}
  respond(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
  }
}

const jpeg = () => new File([new Uint8Array([0xff, 0xd8, 0xff, 0xe0])], 'scan.jpg', { type: 'image/jpeg' });

beforeEach(() => {
  FakeXhr.last = null;
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:preview'), revokeObjectURL: vi.fn() }));
  // The form reads the upload limit and searches patients; both answer through the shared MSW server.
  server.use(
    publicSettings({
      displayLocale: 'en-PK',
      displayTimeZone: 'Asia/Karachi',
      maxUploadMb: 10,
      maxImportFiles: 2000,
      maxImportMb: 2048,
    }),
    api.get<User[]>(ApiPaths.users, () => paged([], { pageSize: 10, totalItems: 0, totalPages: 0 })),
  );
});

function setup() {
  const user = userEvent.setup({ applyAccept: false });
  renderWithProviders(<UploadForm />, '/upload');
  const input = document.querySelector<HTMLInputElement>('input[type=file]')!;
  return { user, input, submit: () => user.click(screen.getByRole('button', { name: 'Upload Image' })) };
}

describe('UploadForm validation (docs/product.md › Validation rules)', () => {
  it("asks for a file: 'Please select a file to upload.'", async () => {
    const error = vi.spyOn(toast, 'error');
    const { submit } = setup();
    await submit();
    expect(error).toHaveBeenCalledWith('Please select a file to upload.', expect.anything());
    expect(FakeXhr.last).toBeNull();
  });

  it('takes the "select a file" toast away once a file is chosen', async () => {
    const error = vi.spyOn(toast, 'error').mockReturnValue('problem-1');
    const dismiss = vi.spyOn(toast, 'dismiss');
    const { user, input, submit } = setup();
    await submit();
    expect(error).toHaveBeenCalledWith('Please select a file to upload.', expect.anything());
    expect(dismiss).not.toHaveBeenCalled();
    await user.upload(input, jpeg());
    expect(dismiss).toHaveBeenCalledWith('problem-1');
    error.mockRestore();
  });

  it("refuses other types: 'Invalid file type. Allowed: .jpg, .png, .pdf, .dicom'", async () => {
    const { user, input } = setup();
    await user.upload(input, new File(['GIF89a'], 'cat.gif', { type: 'image/gif' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Invalid file type. Allowed: .jpg, .png, .pdf, .dicom');
  });

  it("refuses more than the limit: 'File size exceeds 10MB limit.'", async () => {
    const { user, input } = setup();
    const big = new File([new Uint8Array(10 * 1024 * 1024 + 1)], 'big.png', { type: 'image/png' });
    await user.upload(input, big);
    expect(screen.getByRole('alert')).toHaveTextContent('File size exceeds 10MB limit.');
  });

  it("asks for a caption: 'Please provide a caption.'", async () => {
    const { user, input, submit } = setup();
    await user.upload(input, jpeg());
    await submit();
    expect(screen.getByRole('alert')).toHaveTextContent('Please provide a caption.');
    expect(FakeXhr.last).toBeNull();
  });

  it('accepts a DICOM file the browser declares without a type', async () => {
    const { user, input } = setup();
    await user.upload(input, new File([new Uint8Array(200)], 'ct.dcm', { type: '' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByText('ct.dcm')).toBeInTheDocument();
  });
});

describe('UploadForm sending', () => {
  it("posts multipart with the bearer header, shows real progress and 'Uploading...', then the success toast", async () => {
    const success = vi.spyOn(toast, 'success');
    store.dispatch(setUser({ user: makeUser({ role: 'healthProvider' }), token: 'session-token' }));
    const { user, input, submit } = setup();
    await user.upload(input, jpeg());
    expect(screen.getByRole('img', { name: 'Preview of scan.jpg' })).toHaveAttribute('src', 'blob:preview');
    await user.type(screen.getByLabelText(/^Caption/), '  Knee  ');
    await submit();
    const xhr = FakeXhr.last!;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe('/api/upload/image');
    expect(xhr.headers.Authorization).toBe('Bearer session-token');
    store.dispatch(clearSession());
    expect(xhr.body?.get('caption')).toBe('Knee');
    expect((xhr.body?.get('file') as File).name).toBe('scan.jpg');
    expect(screen.getByRole('button', { name: 'Uploading...' })).toBeDisabled();

    xhr.upload.onprogress?.({ lengthComputable: true, loaded: 40, total: 100 });
    expect(await screen.findByRole('progressbar', { name: 'Upload progress' })).toHaveAttribute('aria-valuenow', '40');

    xhr.respond(201, { success: true, message: 'Image uploaded successfully!', data: {} });
    await vi.waitFor(() =>
      expect(success).toHaveBeenCalledWith('Image uploaded successfully!', { position: 'bottom-left' }),
    );
    expect(screen.getByRole('button', { name: 'Upload Image' })).toBeEnabled();
  });

  it("shows each server field error as 'field: message'", async () => {
    const error = vi.spyOn(toast, 'error');
    const { user, input, submit } = setup();
    await user.upload(input, jpeg());
    await user.type(screen.getByLabelText(/^Caption/), 'Knee');
    await submit();
    FakeXhr.last!.respond(400, {
      success: false,
      message: 'Validation failed',
      errors: [{ field: 'patientId', message: 'Select an existing, active patient.' }],
    });
    await vi.waitFor(() =>
      expect(error).toHaveBeenCalledWith('patientId: Select an existing, active patient.', { position: 'bottom-left' }),
    );
  });

  it("falls back to 'Something went wrong while uploading.' without a server message", async () => {
    const error = vi.spyOn(toast, 'error');
    const { user, input, submit } = setup();
    await user.upload(input, jpeg());
    await user.type(screen.getByLabelText(/^Caption/), 'Knee');
    await submit();
    FakeXhr.last!.status = 502;
    FakeXhr.last!.responseText = '<html>bad gateway</html>';
    FakeXhr.last!.onload?.();
    await vi.waitFor(() =>
      expect(error).toHaveBeenCalledWith('Something went wrong while uploading.', { position: 'bottom-left' }),
    );
  });
});
