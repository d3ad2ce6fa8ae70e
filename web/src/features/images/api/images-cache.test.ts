import type { Image, Share, ShareRequestBody } from '@medshare/contracts';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiSlice } from '../../../lib/api-slice';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { api, ok, paged } from '../../../testing/handlers';
import { recordRequests, server } from '../../../testing/server';
import { makeUser } from '../../../testing/test-utils';
import { PROVIDER, makeImage } from '../testing-fixtures';
import { deleteImageApi } from './delete-image';
import { imageContentApi } from './image-content';
import { imageSharesApi } from './image-shares';
import { imageListApi } from './list-images';
import { shareImageApi } from './share-image';

const image = makeImage();
const listArgs = { role: 'healthProvider' as const, page: 1, limit: 10 };
const share: Share = {
  id: '99999999-9999-4999-8999-999999999999',
  imageId: image.id,
  recipient: { id: '22222222-2222-4222-8222-222222222222', firstname: 'Sara', lastname: 'Ali', role: 'healthProvider' },
  createdBy: { id: PROVIDER.id, firstname: 'Bilal', lastname: 'Khan' },
  state: 'pending',
  isPatientShare: false,
  expiresAt: null,
  verifiedAt: null,
  revokedAt: null,
  createdAt: '2026-11-22T04:00:00.000Z',
};

const count = (requests: Request[], method: string, pathname: string) =>
  requests.filter((r) => r.method === method && new URL(r.url).pathname === pathname).length;

describe('images in the server-state cache', () => {
  afterEach(() => {
    store.dispatch(clearSession());
  });

  it('a share refetches the image list and the shares of that image; a delete refetches the list', async () => {
    store.dispatch(setUser({ user: makeUser({ id: PROVIDER.id, role: 'healthProvider' }), token: 'tok' }));
    server.use(
      api.get<Image[]>('/upload/my-images', () => paged([image])),
      api.get<Share[]>('/sharing/image/:imageId', () => ok([share])),
      api.post<Share, ShareRequestBody>('/sharing/request', () => ok(share, 'Image shared successfully', 201)),
      api.delete<null>('/upload/image/:id', () => ok(null, 'Image deleted successfully')),
    );
    const requests = recordRequests();
    const list = store.dispatch(imageListApi.endpoints.listImages.initiate(listArgs));
    const shares = store.dispatch(imageSharesApi.endpoints.listShares.initiate(image.id));
    await list;
    await shares;
    expect(count(requests, 'GET', '/api/upload/my-images')).toBe(1);
    expect(count(requests, 'GET', `/api/sharing/image/${image.id}`)).toBe(1);

    await store
      .dispatch(
        shareImageApi.endpoints.shareImage.initiate({
          imagemetadataId: image.id,
          createdfor: share.recipient.id,
          expiresInHours: 24,
        }),
      )
      .unwrap();
    await vi.waitFor(() => {
      expect(count(requests, 'GET', '/api/upload/my-images')).toBe(2);
      expect(count(requests, 'GET', `/api/sharing/image/${image.id}`)).toBe(2);
    });

    const result = await store.dispatch(deleteImageApi.endpoints.deleteImage.initiate(image.id)).unwrap();
    expect(result.message).toBe('Image deleted successfully');
    await vi.waitFor(() => expect(count(requests, 'GET', '/api/upload/my-images')).toBe(3));
    list.unsubscribe();
    shares.unsubscribe();
  });

  it('hands out one object URL per content path and revokes it when the cache entry goes', async () => {
    store.dispatch(setUser({ user: makeUser(), token: 'tok' }));
    const created: string[] = [];
    const revoked: string[] = [];
    vi.stubGlobal(
      'URL',
      Object.assign(URL, {
        createObjectURL: vi.fn(() => {
          created.push(`blob:${created.length + 1}`);
          return created.at(-1)!;
        }),
        revokeObjectURL: vi.fn((url: string) => void revoked.push(url)),
      }),
    );
    server.use(
      http.get('/api/images/:id/content', () =>
        HttpResponse.arrayBuffer(new Uint8Array([1, 2, 3]).buffer, { headers: { 'Content-Type': 'image/png' } }),
      ),
    );
    const path = `/api/images/${image.id}/content`;
    const first = store.dispatch(imageContentApi.endpoints.imageBlob.initiate(path));
    const second = store.dispatch(imageContentApi.endpoints.imageBlob.initiate(path));
    const { data } = await first;
    await second;
    expect(data).toEqual({ url: 'blob:1', type: 'image/png' });
    expect(created).toEqual(['blob:1']);

    // A refetch replaces the URL: the old one is revoked at once.
    await first.refetch();
    expect(created).toEqual(['blob:1', 'blob:2']);
    expect(revoked).toEqual(['blob:1']);

    first.unsubscribe();
    second.unsubscribe();
    // The session ends: the cache is emptied and no decrypted bytes stay reachable.
    store.dispatch(apiSlice.util.resetApiState());
    await vi.waitFor(() => expect(revoked).toEqual(['blob:1', 'blob:2']));
  });
});
