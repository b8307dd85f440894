/**
 * A TCP proxy on loopback in front of a real server (Redis here) that can lose replies: once armed
 * with a needle, the first client connection whose request bytes contain it has every later reply
 * swallowed (the request itself reaches the server and takes effect), until `release()` closes it.
 * This is "the server stored the write, the reply was lost" with real sockets.
 */
import net from 'node:net';

export interface StallProxy {
  readonly port: number;
  /** Stalls the first connection that sends `needle` from then on. */
  arm(needle: string): void;
  /** True once a connection is stalled. */
  stalled(): boolean;
  /** Closes the stalled connection (its client reconnects through the proxy). */
  release(): void;
  close(): Promise<void>;
}

export async function startStallProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<StallProxy> {
  let needle: string | undefined;
  let stalledPair: [net.Socket, net.Socket] | undefined;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: targetHost, port: targetPort });
    let swallowing = false;
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (b: Buffer) => {
      if (needle !== undefined && !stalledPair && b.includes(needle)) {
        swallowing = true;
        stalledPair = [client, upstream];
      }
      upstream.write(b);
    });
    upstream.on('data', (b: Buffer) => {
      if (!swallowing) client.write(b);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    arm: (n) => void (needle = n),
    stalled: () => stalledPair !== undefined,
    release() {
      needle = undefined;
      stalledPair?.[0].destroy();
      stalledPair?.[1].destroy();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
