import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { freeBuffer, freeEachOnceWritten, freeWhenSent } from './free-buffer.ts';

/** The whole answer of a GET to the test server. */
const fetchWhole = (port: number) =>
  new Promise<Buffer>((resolve, reject) =>
    request({ port, host: '127.0.0.1' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks)));
    })
      .on('error', reject)
      .end(),
  );

/** A client that goes away as soon as the first bytes of the answer reach it. */
const leaveAfterFirstBytes = (port: number) =>
  new Promise<void>((resolve) => {
    const req = request({ port, host: '127.0.0.1' }, (res) =>
      res.once('data', () => {
        req.destroy();
        resolve();
      }),
    );
    req.on('error', () => undefined).end();
  });

describe('freeBuffer', () => {
  it('frees a buffer owned whole at once, and leaves alone what it does not own whole', () => {
    const moved = new Uint8Array(new ArrayBuffer(4096)).fill(1);
    freeBuffer(moved);
    expect(moved.byteLength).toBe(0);
    expect((moved.buffer as ArrayBuffer).detached).toBe(true);
    freeBuffer(moved); // twice: nothing more to do

    // A small Buffer is a view of a slab of Node's pool that others share: freeing it must not touch them.
    const a = Buffer.from('first');
    expect(a.byteLength).toBeLessThan(a.buffer.byteLength);
    const neighbour = Buffer.from(a.buffer, a.byteOffset === 0 ? a.byteLength : 0, 4).fill(9);
    freeBuffer(a);
    expect(a.toString()).toBe('first');
    expect([...neighbour]).toEqual([9, 9, 9, 9]);
    // Part of a buffer is not a buffer owned whole either.
    const whole = new Uint8Array(64).fill(7);
    freeBuffer(whole.subarray(8));
    expect(whole.buffer.byteLength).toBe(64);
  });
});

describe('freeWhenSent', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

  /** A server whose one answer is `body` (freed once sent); resolves with the answer's end, sent or not. */
  function serve(body: Buffer[]) {
    let ended!: () => void;
    const done = new Promise<void>((resolve) => (ended = resolve));
    server = createServer((_req, res) => {
      freeWhenSent(res, body);
      res.once('close', ended);
      res.writeHead(200, { 'content-length': String(body.reduce((n, b) => n + b.length, 0)) });
      for (const piece of body) res.write(piece);
      res.end();
    });
    return new Promise<{ port: number; done: Promise<void> }>((resolve) =>
      server!.listen(0, '127.0.0.1', () => resolve({ port: (server!.address() as AddressInfo).port, done })),
    );
  }

  it('frees the pieces once the answer has sent every byte of them, which the client receives intact', async () => {
    const pieces = [Buffer.alloc(64 * 1024, 1), Buffer.alloc(40 * 1024, 2)];
    const { port, done } = await serve(pieces);
    const received = await fetchWhole(port);
    await done;
    expect(received.length).toBe(104 * 1024);
    expect(received.subarray(0, 64 * 1024).every((b) => b === 1)).toBe(true);
    expect(received.subarray(64 * 1024).every((b) => b === 2)).toBe(true);
    expect(pieces.map((p) => p.byteLength)).toEqual([0, 0]);
  });

  it('leaves the pieces to the collector when the client goes away before the end (a write may still be queued)', async () => {
    // Larger than the socket buffers, so that the answer cannot have been written whole when the client leaves.
    const pieces = [Buffer.alloc(32 * 1024 * 1024, 3)];
    const { port, done } = await serve(pieces);
    await leaveAfterFirstBytes(port);
    await done;
    expect(pieces[0]!.byteLength).toBe(32 * 1024 * 1024);
  });
});

describe('freeEachOnceWritten', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

  /**
   * A server whose one answer is `body` piped into the response, as Fastify sends a stream; the
   * buffers in `owned` are marked. Resolves with the answer's end, sent or not.
   */
  function serve(body: () => AsyncGenerator<Uint8Array>, owned: Uint8Array[]) {
    let ended!: () => void;
    const done = new Promise<void>((resolve) => (ended = resolve));
    server = createServer((_req, res) => {
      const own = freeEachOnceWritten(res);
      for (const buffer of owned) own(buffer);
      res.once('close', ended);
      Readable.from(body(), { objectMode: false }).pipe(res);
    });
    return new Promise<{ port: number; done: Promise<void> }>((resolve) =>
      server!.listen(0, '127.0.0.1', () => resolve({ port: (server!.address() as AddressInfo).port, done })),
    );
  }

  it('frees each marked piece once written, while the answer still streams, and leaves the others alone', async () => {
    // A Uint8Array the stream turns into a Buffer of the same memory, and a Buffer.
    const first = new Uint8Array(64 * 1024).fill(1);
    const second = Buffer.alloc(40 * 1024, 2);
    const notOwned = Buffer.alloc(8 * 1024, 3);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { port, done } = await serve(
      async function* () {
        yield first;
        yield notOwned;
        await gate;
        yield second;
      },
      [first, second],
    );
    const received = fetchWhole(port);
    // The answer is not over (it waits for the gate), yet the first piece, written, is freed.
    await vi.waitFor(() => expect(first.byteLength).toBe(0), { timeout: 5_000 });
    expect(second.byteLength).toBe(40 * 1024);
    release();
    const bytes = await received;
    await done;
    expect(bytes.length).toBe(112 * 1024);
    expect(bytes.subarray(0, 64 * 1024).every((b) => b === 1)).toBe(true);
    expect(bytes.subarray(64 * 1024, 72 * 1024).every((b) => b === 3)).toBe(true);
    expect(bytes.subarray(72 * 1024).every((b) => b === 2)).toBe(true);
    expect(second.byteLength).toBe(0);
    expect(notOwned.byteLength).toBe(8 * 1024);
  });

  it('leaves a piece whose write fails (the client went away) to the collector', async () => {
    // Larger than the socket buffers, so that its write cannot have completed when the client leaves.
    const piece = Buffer.alloc(32 * 1024 * 1024, 4);
    const { port, done } = await serve(
      async function* () {
        yield piece;
      },
      [piece],
    );
    await leaveAfterFirstBytes(port);
    await done;
    expect(piece.byteLength).toBe(32 * 1024 * 1024);
  });
});
