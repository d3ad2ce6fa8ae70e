import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';

export interface TcpProxy {
  /** The local port; it stays the same across cut and restore. */
  readonly port: number;
  /** Connections opened through the proxy so far (to see that a client reconnected). */
  readonly connections: number;
  /** The outage: stops listening (new connections are refused) and drops every open connection. */
  cut(): Promise<void>;
  /** Cuts once `bytes` more have gone from the clients to the service: an outage mid-transfer. */
  cutAfter(bytes: number): Promise<void>;
  /** The service is back: listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP proxy between the app and a shared service (PostgreSQL, Redis, SMTP). Cutting it plays an
 * outage of that service for this app alone, without touching the service others use.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  let connections = 0;
  let armed: { left: number; done: () => void } | null = null;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        connections++;
        const upstream = connect(target.port, target.host);
        for (const sock of [client, upstream]) {
          sockets.add(sock);
          sock.on('close', () => sockets.delete(sock));
          // Either side failing ends both, as a real network failure would.
          sock.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.on('data', (chunk: Buffer) => {
          if (!armed) return;
          armed.left -= chunk.length;
          if (armed.left <= 0) {
            const { done } = armed;
            armed = null;
            void cut().then(done);
          }
        });
        client.pipe(upstream).pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as AddressInfo).port;
        server = s;
        resolve();
      });
    });

  const cut = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = null;
      for (const sock of sockets) sock.destroy();
      sockets.clear();
      if (!s) return resolve();
      s.close(() => resolve());
    });

  await listen();
  return {
    get port() {
      return port;
    },
    get connections() {
      return connections;
    },
    cut,
    cutAfter: (bytes) => new Promise<void>((done) => (armed = { left: bytes, done })),
    restore: () => (server ? Promise.resolve() : listen()),
    close: cut,
  };
}

/** The same URL with host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(proxy.port);
  return u.toString();
}
