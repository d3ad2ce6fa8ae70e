import { Readable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { sendStoredContent, STORED_CONTENT_CSP, type StoredContent } from './content-headers.ts';

/** A server on a real socket answering `content` once, and the bytes a client got from it. */
async function fetchOnce(content: StoredContent) {
  const app = Fastify({ logger: false });
  app.get('/x', (_request, reply) => sendStoredContent(reply, content));
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const res = await fetch(`${base}/x`);
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  } finally {
    await app.close();
  }
}

describe('sendStoredContent', () => {
  it('sends the pieces with the stored-content headers, then frees them', async () => {
    const pieces = [Buffer.alloc(64 * 1024, 5), Buffer.alloc(1000, 6)];
    const { res, bytes } = await fetchOnce({
      body: Readable.from(pieces),
      owned: pieces,
      contentType: 'application/dicom',
      size: 64 * 1024 + 1000,
      disposition: 'inline; filename="a.dcm"',
    });
    expect(res.headers.get('content-security-policy')).toBe(STORED_CONTENT_CSP);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('content-length')).toBe(String(64 * 1024 + 1000));
    expect(bytes.equals(Buffer.concat([Buffer.alloc(64 * 1024, 5), Buffer.alloc(1000, 6)]))).toBe(true);
    // Freed once the response finished (the client had every byte by then).
    await new Promise((resolve) => setImmediate(resolve));
    expect(pieces.map((p) => p.byteLength)).toEqual([0, 0]);
  });

  it('sends a stream (nothing owned) as it is', async () => {
    const { bytes } = await fetchOnce({
      body: Readable.from([Buffer.from('stream')]),
      owned: [],
      contentType: 'text/plain',
      size: 6,
      disposition: 'inline',
    });
    expect(bytes.toString()).toBe('stream');
  });
});
