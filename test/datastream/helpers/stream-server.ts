/**
 * A real Datastream-like WebSocket server on 127.0.0.1 (ephemeral port) for tests: key in the
 * path, join/leave per socket, ping/pong, and faults (drop, silence, refuse the key, raw frames).
 */
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface ServerConn {
  readonly id: number;
  readonly socket: WebSocket;
  readonly rooms: Set<string>;
  readonly joins: string[];
  readonly leaves: string[];
  pongs: number;
}

export interface StreamServer {
  /** Base URL without the key. */
  readonly url: string;
  readonly conns: ServerConn[];
  /** Connections open right now. */
  open(): ServerConn[];
  /** Most connections open at the same time. */
  readonly maxOpen: number;
  /** Upgrade requests seen (accepted or refused). */
  readonly attempts: number;
  /** Sends `{type:'message', room, data}` to every open socket joined to `room`; returns how many got it. */
  publish(room: string, data: unknown): number;
  /** Sends a raw text frame to every open socket. */
  sendRaw(text: string): void;
  /**
   * Sends raw text frames to every open socket in one TCP write (the socket is corked around them),
   * so a client on loopback reads them together: frames of one socket read. Tests must not rely on
   * the read boundaries, only exercise them.
   */
  sendBurst(texts: readonly string[]): void;
  /** Terminates every open socket (no close frame). */
  dropAll(): void;
  /** While silent, the server sends nothing and ignores frames. */
  silent: boolean;
  /** While refusing, upgrades get HTTP 401. */
  refusing: boolean;
  close(): Promise<void>;
}

export async function startStreamServer(apiKey: string): Promise<StreamServer> {
  let attempts = 0;
  let maxOpen = 0;
  let nextId = 1;
  const conns: ServerConn[] = [];
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    verifyClient: (info, cb) => {
      attempts++;
      if (server.refusing || info.req.url !== `/${apiKey}`) cb(false, 401, 'Unauthorized');
      else cb(true);
    },
  });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const open = (): ServerConn[] => conns.filter((c) => c.socket.readyState === 1);
  wss.on('connection', (socket) => {
    const c: ServerConn = { id: nextId++, socket, rooms: new Set(), joins: [], leaves: [], pongs: 0 };
    conns.push(c);
    maxOpen = Math.max(maxOpen, open().length);
    socket.on('message', (raw) => {
      if (server.silent) return;
      const f = JSON.parse(String(raw)) as { type: string; room?: string };
      if (f.type === 'join' && f.room) {
        c.joins.push(f.room);
        c.rooms.add(f.room);
      } else if (f.type === 'leave' && f.room) {
        c.leaves.push(f.room);
        c.rooms.delete(f.room);
      } else if (f.type === 'pong') c.pongs++;
    });
  });
  const { port } = wss.address() as AddressInfo;
  const server: StreamServer = {
    url: `ws://127.0.0.1:${port}`,
    conns,
    open,
    get maxOpen() {
      return maxOpen;
    },
    get attempts() {
      return attempts;
    },
    publish(room, data) {
      if (server.silent) return 0;
      const text = JSON.stringify({ type: 'message', room, data });
      let n = 0;
      for (const c of open()) {
        if (c.rooms.has(room)) {
          c.socket.send(text);
          n++;
        }
      }
      return n;
    },
    sendRaw(text) {
      for (const c of open()) c.socket.send(text);
    },
    sendBurst(texts) {
      for (const c of open()) {
        // ws keeps its TCP socket in `_socket` (not in its types)
        const tcp = (c.socket as unknown as { _socket: Socket })._socket;
        tcp.cork();
        for (const t of texts) c.socket.send(t);
        tcp.uncork();
      }
    },
    dropAll() {
      for (const c of open()) c.socket.terminate();
    },
    silent: false,
    refusing: false,
    async close() {
      for (const c of conns) c.socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
  return server;
}

/** Polls `pred` on real time (socket I/O needs it) until true, or throws after `timeoutMs`. */
export async function waitFor(pred: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!pred()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
