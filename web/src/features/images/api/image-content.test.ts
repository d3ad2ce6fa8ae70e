import { describe, expect, it, vi } from 'vitest';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { makeUser } from '../../../testing/test-utils';
import { fetchImageBlob } from './image-content';

describe('fetchImageBlob', () => {
  it('sends the bearer header, never the token in the URL, and asks for an attachment with ?download=1', async () => {
    store.dispatch(setUser({ user: makeUser(), token: 'secret-token' }));
    const fetchMock = vi
      .fn<typeof fetch>()
      .mockResolvedValue(new Response('x', { headers: { 'Content-Type': 'image/jpeg' } }));
    vi.stubGlobal('fetch', fetchMock);
    const blob = await fetchImageBlob('/api/images/abc/content', { download: true });
    store.dispatch(clearSession());
    expect(blob.type).toBe('image/jpeg');
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/images/abc/content?download=1');
    expect(String(url)).not.toContain('secret-token');
    expect(new Headers(init?.headers).get('Authorization')).toBe('Bearer secret-token');
  });

  it('throws the status for content the viewer may not see', async () => {
    vi.stubGlobal(
      'fetch',
      vi
        .fn<typeof fetch>()
        .mockResolvedValue(
          new Response(JSON.stringify({ success: false, message: 'Image not found' }), { status: 404 }),
        ),
    );
    await expect(fetchImageBlob('/api/images/abc/content')).rejects.toMatchObject({
      status: 404,
      message: 'Image not found',
    });
  });
});
