/**
 * A TCP proxy on 127.0.0.1 that a test can cut (every connection dropped, new ones refused) and
 * restore: a real network fault between a client and a server, with no change to either.
 */
import net from 'node:net';

export interface TcpProxy {
  readonly port: number;
  cut(): void;
  restore(): void;
  /** Stops forwarding bytes (sockets stay open, nothing arrives: a silent feed); held bytes flow on `unstall`. */
  stall(): void;
  unstall(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let refusing = false;
  let stalled = false;
  const held: { to: net.Socket; chunk: Buffer }[] = [];
  const forward = (from: net.Socket, to: net.Socket): void => {
    from.on('data', (chunk: Buffer) => {
      if (stalled) held.push({ to, chunk });
      else to.write(chunk);
    });
  };
  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    forward(client, upstream);
    forward(upstream, client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('proxy has no port');
  return {
    port: address.port,
    cut() {
      refusing = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      refusing = false;
    },
    stall() {
      stalled = true;
    },
    unstall() {
      stalled = false;
      for (const { to, chunk } of held.splice(0)) if (!to.destroyed) to.write(chunk);
    },
    async close() {
      refusing = true;
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
