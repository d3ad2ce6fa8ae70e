import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { sendStoredContent, STORED_CONTENT_CSP, type StoredContent } from './content-headers.ts';

/** A server on a real socket that answers `content` for the time `use` runs; closed after. */
async function serving<T>(content: StoredContent, use: (base: string) => Promise<T>): Promise<T> {
  const app = Fastify({ logger: false });
  app.get('/x', (_request, reply) => sendStoredContent(reply, content));
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    return await use(base);
  } finally {
    await app.close();
  }
}

/** The answer to one GET, and its bytes. */
const fetchOnce = (content: StoredContent) =>
  serving(content, async (base) => {
    const res = await fetch(`${base}/x`);
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  });

/** One buffer as a whole read's answer that owns it. */
const ownedWhole = (bytes: Buffer, contentType: string): StoredContent => ({
  body: bytes,
  owned: [bytes],
  contentType,
  size: bytes.length,
  disposition: 'inline',
});

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

  it('frees one large buffer only after a slow reader has had all of it, intact', async () => {
    // Larger than loopback can hold in flight while the client waits: the sending socket's buffer
    // grows to net.ipv4.tcp_wmem's maximum (4 MiB on Debian), so a 4 MiB answer could be all written,
    // and rightly freed, before the client read a byte.
    const size = 64 * 1024 * 1024;
    const whole = Buffer.alloc(size);
    for (let i = 0; i < whole.length; i += 4096) whole[i] = i % 251;
    const digest = createHash('sha256').update(whole).digest('hex');
    let lengthWhileWaiting = -1;
    const received = await serving(
      ownedWhole(whole, 'application/octet-stream'),
      (base) =>
        new Promise<Buffer>((resolve, reject) =>
          request(`${base}/x`, (res) => {
            // The client waits before reading: the server's write is still queued meanwhile.
            res.pause();
            setTimeout(() => {
              lengthWhileWaiting = whole.byteLength;
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () => resolve(Buffer.concat(chunks)));
              res.resume();
            }, 300);
          })
            .on('error', reject)
            .end(),
        ),
    );
    // Not freed while the answer was still on its way; freed once it had all gone.
    expect(lengthWhileWaiting).toBe(size);
    expect(createHash('sha256').update(received).digest('hex')).toBe(digest);
    expect(whole.byteLength).toBe(0);
  });

  it('answers HEAD with the headers alone and frees the bytes', async () => {
    const piece = Buffer.alloc(70 * 1024, 1);
    const res = await serving(ownedWhole(piece, 'image/jpeg'), (base) => fetch(`${base}/x`, { method: 'HEAD' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(70 * 1024));
    expect((await res.arrayBuffer()).byteLength).toBe(0);
    expect(piece.byteLength).toBe(0);
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
