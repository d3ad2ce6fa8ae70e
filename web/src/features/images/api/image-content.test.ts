import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { failure } from '../../../testing/handlers';
import { recordRequests, server } from '../../../testing/server';
import { makeUser } from '../../../testing/test-utils';
import { fetchImageBlob } from './image-content';

describe('fetchImageBlob', () => {
  it('sends the bearer header, never the token in the URL, and asks for an attachment with ?download=1', async () => {
    store.dispatch(setUser({ user: makeUser(), token: 'secret-token' }));
    server.use(
      http.get('/api/images/:id/content', () =>
        HttpResponse.arrayBuffer(new Uint8Array([0xff, 0xd8, 0xff]).buffer, {
          headers: { 'Content-Type': 'image/jpeg' },
        }),
      ),
    );
    const requests = recordRequests();
    const blob = await fetchImageBlob('/api/images/abc/content', { download: true });
    store.dispatch(clearSession());
    expect(blob.type).toBe('image/jpeg');
    expect(new Uint8Array(await blob.arrayBuffer())).toEqual(new Uint8Array([0xff, 0xd8, 0xff]));
    expect(requests).toHaveLength(1);
    const url = new URL(requests[0]!.url);
    expect(`${url.pathname}${url.search}`).toBe('/api/images/abc/content?download=1');
    expect(requests[0]!.url).not.toContain('secret-token');
    expect(requests[0]!.headers.get('Authorization')).toBe('Bearer secret-token');
  });

  it('throws the status for content the viewer may not see', async () => {
    server.use(http.get('/api/images/:id/content', () => failure(404, 'Image not found')));
    await expect(fetchImageBlob('/api/images/abc/content')).rejects.toMatchObject({
      status: 404,
      message: 'Image not found',
    });
  });
});
