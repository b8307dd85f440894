/**
 * The Datastream server side: clients, reference sets of rooms, heartbeats and fan-out. A frame is
 * serialised once per message and the same bytes are written to every subscriber.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Random } from '../../core/index.js';
import type { StreamFaults } from '../faults/fault-settings.js';

/**
 * What the hub uses of a client's socket (a `ws` WebSocket). Written out rather than imported, so the
 * package's declarations do not name `ws`'s types (whose `export =` a consumer without
 * `esModuleInterop` cannot import by name).
 */
export interface HubSocket {
  readonly readyState: number;
  readonly OPEN: number;
  readonly bufferedAmount: number;
  send(data: string | Buffer, options: { binary: boolean }): void;
  terminate(): void;
}

export interface HubClient {
  readonly id: number;
  readonly ws: HubSocket;
  readonly rooms: Set<string>;
  /** Rooms this client asked to join beyond `maxRoomsPerClient` (answered with ROOM_LIMIT), until it leaves them. */
  readonly refused: Set<string>;
  awaitingPong: boolean;
  /** A fault made this socket silent: nothing is sent, pings are not answered. */
  silent: boolean;
}

export interface HubStats {
  readonly clients: number;
  /** Rooms with at least one subscriber. */
  readonly rooms: number;
  readonly framesSent: number;
  readonly messagesPublished: number;
  readonly droppedForNoPong: number;
  /** Clients dropped because they read too slowly (send buffer over `maxBufferedBytes`). */
  readonly droppedSlow: number;
  /**
   * Joins refused with ROOM_LIMIT and not left since, summed over clients: with `rooms`, every room a
   * client holds is accounted for once the hub has read its joins and leaves (lockstep drivers wait for that).
   */
  readonly refusedRooms: number;
}

export interface DatastreamHub {
  /** Completes a WebSocket upgrade for an authenticated request. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** True when at least one client joined `room`. */
  has(room: string): boolean;
  /**
   * True when a client joined a room of `family` (the room's text before its first `:`, e.g.
   * `transaction` for `transaction:{mint}`): publishers skip building a family's room names when false.
   */
  hasFamily(family: string): boolean;
  /** Sends `{type:'message', room, data}` to every client in `room`. */
  publish(room: string, data: unknown): void;
  /** Rooms with at least one subscriber. */
  rooms(): IterableIterator<string>;
  /** Called with each room when its first subscriber joins and after its last one leaves. */
  onRoomChange(listener: (room: string, joined: boolean) => void): void;
  /** Applies socket faults once (the driver calls it each simulated second). */
  injectFaults(random: Random, faults: StreamFaults): void;
  stats(): HubStats;
  close(): Promise<void>;
}

export interface HubOptions {
  /** Real milliseconds between server pings; a client that has not answered the previous ping by the next one is dropped. */
  readonly pingIntervalMs: number;
  /** Joins beyond this many rooms on one connection are refused with an error frame. */
  readonly maxRoomsPerClient: number;
  /** A client whose unsent bytes exceed this is dropped, so a slow reader cannot grow memory without bound. */
  readonly maxBufferedBytes: number;
}

export function createDatastreamHub(options: HubOptions): DatastreamHub {
  const wss = new WebSocketServer({ noServer: true, autoPong: false, maxPayload: 64 * 1024 });
  const clients = new Set<HubClient>();
  const rooms = new Map<string, Set<HubClient>>();
  /** Subscribed rooms per family (see `hasFamily`). */
  const families = new Map<string, number>();
  const familyOf = (room: string): string => {
    const i = room.indexOf(':');
    return i < 0 ? room : room.slice(0, i);
  };
  const roomListeners: ((room: string, joined: boolean) => void)[] = [];
  const pingFrame = Buffer.from(JSON.stringify({ type: 'ping' }));
  let nextId = 1;
  let framesSent = 0;
  let messagesPublished = 0;
  let droppedForNoPong = 0;
  let droppedSlow = 0;
  let refusedRooms = 0;

  const send = (c: HubClient, bytes: Buffer): void => {
    if (c.silent || c.ws.readyState !== c.ws.OPEN) return;
    if (c.ws.bufferedAmount > options.maxBufferedBytes) {
      droppedSlow += 1;
      drop(c);
      return;
    }
    c.ws.send(bytes, { binary: false });
    framesSent += 1;
  };
  const sendJson = (c: HubClient, v: unknown): void => send(c, Buffer.from(JSON.stringify(v)));

  const join = (c: HubClient, room: string): void => {
    if (c.rooms.has(room)) return;
    if (c.rooms.size >= options.maxRoomsPerClient) {
      if (!c.refused.has(room)) {
        c.refused.add(room);
        refusedRooms += 1;
      }
      sendJson(c, { type: 'error', code: 'ROOM_LIMIT', message: `at most ${options.maxRoomsPerClient} rooms per connection; leave a room first`, room });
      return;
    }
    c.rooms.add(room);
    let set = rooms.get(room);
    if (!set) {
      rooms.set(room, (set = new Set()));
      const f = familyOf(room);
      families.set(f, (families.get(f) ?? 0) + 1);
      for (const l of roomListeners) l(room, true);
    }
    set.add(c);
  };
  const leave = (c: HubClient, room: string): void => {
    if (c.refused.delete(room)) refusedRooms -= 1;
    if (!c.rooms.delete(room)) return;
    const set = rooms.get(room);
    set?.delete(c);
    if (set && set.size === 0) {
      rooms.delete(room);
      const f = familyOf(room);
      const n = (families.get(f) ?? 1) - 1;
      if (n > 0) families.set(f, n);
      else families.delete(f);
      for (const l of roomListeners) l(room, false);
    }
  };
  function drop(c: HubClient): void {
    for (const room of [...c.rooms]) leave(c, room);
    refusedRooms -= c.refused.size;
    c.refused.clear();
    clients.delete(c);
    c.ws.terminate();
  }

  const onMessage = (c: HubClient, raw: string): void => {
    let msg: unknown;
    try {
      msg = JSON.parse(raw);
    } catch {
      sendJson(c, { type: 'error', code: 'INVALID_MESSAGE', message: 'frames must be JSON objects like {"type":"join","room":"latest"}' });
      return;
    }
    const m = (typeof msg === 'object' && msg !== null ? msg : {}) as { type?: unknown; room?: unknown };
    if (m.type === 'pong') {
      c.awaitingPong = false;
      return;
    }
    if (m.type === 'ping') {
      if (!c.silent) sendJson(c, { type: 'pong' });
      return;
    }
    if ((m.type === 'join' || m.type === 'leave') && typeof m.room === 'string' && m.room.length > 0 && m.room.length <= 200) {
      if (m.type === 'join') join(c, m.room);
      else leave(c, m.room);
      return;
    }
    sendJson(c, { type: 'error', code: 'INVALID_MESSAGE', message: 'expected {type:"join"|"leave", room:string} or {type:"pong"}' });
  };

  const heartbeat = setInterval(() => {
    for (const c of [...clients]) {
      if (c.awaitingPong) {
        droppedForNoPong += 1;
        drop(c);
        continue;
      }
      c.awaitingPong = true;
      send(c, pingFrame);
    }
  }, options.pingIntervalMs);
  heartbeat.unref();

  return {
    handleUpgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => {
        const c: HubClient = { id: nextId++, ws, rooms: new Set(), refused: new Set(), awaitingPong: false, silent: false };
        clients.add(c);
        ws.on('message', (data) =>
          onMessage(c, Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8')),
        );
        ws.on('close', () => {
          if (clients.has(c)) drop(c);
        });
        ws.on('error', () => drop(c));
      });
    },
    has: (room) => rooms.has(room),
    hasFamily: (family) => families.has(family),
    publish(room, data) {
      const set = rooms.get(room);
      if (!set) return;
      messagesPublished += 1;
      const bytes = Buffer.from(JSON.stringify({ type: 'message', room, data }));
      for (const c of set) send(c, bytes);
    },
    rooms: () => rooms.keys(),
    onRoomChange(listener) {
      roomListeners.push(listener);
    },
    injectFaults(random, faults) {
      for (const c of [...clients]) {
        if (random.chance(faults.dropSocketPerSecond)) drop(c);
        else if (!c.silent && random.chance(faults.silenceSocketPerSecond)) c.silent = true;
        else if (random.chance(faults.malformedFramePerSecond) && !c.silent && c.ws.readyState === c.ws.OPEN) {
          c.ws.send('{"type":"message","room":', { binary: false });
          framesSent += 1;
        }
      }
    },
    stats: () => ({ clients: clients.size, rooms: rooms.size, framesSent, messagesPublished, droppedForNoPong, droppedSlow, refusedRooms }),
    async close() {
      clearInterval(heartbeat);
      for (const c of [...clients]) drop(c);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
