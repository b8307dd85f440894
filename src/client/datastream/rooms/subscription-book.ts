/**
 * The subscription book: which rooms the client is subscribed to, reference-counted (one join
 * however many subscribers, one leave when the last one goes: the router keeps the count), and
 * what the server was told about them on the current socket.
 *
 * Joins and leaves are written after the caller's turn (one setImmediate for all of them), not
 * inside subscribe(): a strategy that buys a token without a price joins its price room while the
 * frame that decided the buy is still being handled, and the join's frame write (mask, JSON, socket
 * write) is then off that decision's path. Rooms touched meanwhile are compared with what the server
 * was told on this socket, so a join and leave of the same room in one turn write nothing, and a
 * reconnect (which joins every subscribed room) leaves nothing to repeat.
 *
 * Every room frame leaves through `write`, and a turn's changes through one `flush`: the seam where
 * a turn's joins and leaves become one corked socket write (`RoomWire.batch`, design.md §9).
 *
 * With a window (`windowMs` > 0, the client's `roomWriteWindowMs`) the flush after a write waits
 * until `windowMs` real milliseconds have passed since it: a client that joins a price room for
 * every launch it buys and leaves it when the intent ends (one join and one leave a frame, each a
 * write syscall of its own turn) writes at most one corked write per window, and a room left and
 * joined again within the window writes nothing. A change after a quiet window is written after
 * the turn, as without one.
 *
 * State: `touched` (rooms changed since the last flush), `joined` (rooms the current socket was
 * told to join), whether a flush is queued (and its timer), when the last frame was written, and
 * `closed`.
 */
import { ChainpilotError } from '../../../core/index.js';
import type { RoomRouter } from '../delivery/room-router.js';
import { checkRoomName } from '../../../core/room-names.js';
import type { Handler } from '../delivery/subscriber.js';
import type { DatastreamMessage } from '../stream-message.js';

/** The frame a room change writes. */
export interface RoomFrame {
  readonly type: 'join' | 'leave';
  readonly room: string;
}

/** Where room frames go: the connection. `send` is false when no socket is open (the next open joins what is subscribed). */
export interface RoomWire {
  send(frame: RoomFrame): boolean;
  /** Runs `sends` so that the frames it sends leave in one socket write (the socket corked). */
  batch(sends: () => void): void;
}

export interface SubscriptionBook {
  /** Validates `room`, adds the subscriber, and joins the room after this turn if it is its first; returns the unsubscribe. */
  subscribe(room: string, handler: Handler<DatastreamMessage>): () => void;
  /** Rooms subscribed now (joined, or to be joined on the next open). */
  readonly rooms: () => string[];
  /** How many rooms are subscribed. */
  readonly size: number;
  /** A new socket is open: every subscribed room is joined on it (the server knows nothing of the last socket's). */
  joinAll(): void;
  /** Final: subscribe throws STREAM_CLOSED and no room frame is written again; unsubscribes still release their handlers. */
  close(): void;
}

/**
 * `windowMs`: real milliseconds after a room write before the next (0: every turn's changes are
 * written after that turn).
 */
export function createSubscriptionBook(router: Pick<RoomRouter, 'rooms' | 'add' | 'remove'>, wire: RoomWire, windowMs = 0): SubscriptionBook {
  const touched = new Set<string>();
  const joined = new Set<string>();
  let flushQueued = false;
  let flushTimer: ReturnType<typeof setTimeout> | undefined;
  let writtenAt = -Infinity;
  let closed = false;

  /** Tells the socket about one room; remembered only when the frame went out. */
  const write = (room: string, join: boolean): void => {
    if (!wire.send({ type: join ? 'join' : 'leave', room })) return;
    writtenAt = performance.now();
    if (join) joined.add(room);
    else joined.delete(room);
  };

  /** The room changes since the last flush, each compared with what the socket was told. */
  const flush = (): void => {
    flushQueued = false;
    flushTimer = undefined;
    wire.batch(() => {
      for (const room of touched) {
        const want = router.rooms.has(room);
        if (closed || want === joined.has(room)) continue;
        write(room, want);
      }
    });
    touched.clear();
  };

  const touch = (room: string): void => {
    touched.add(room);
    if (flushQueued) return;
    flushQueued = true;
    const wait = windowMs > 0 ? writtenAt + windowMs - performance.now() : 0;
    if (wait > 0) flushTimer = setTimeout(flush, wait);
    else setImmediate(flush);
  };

  return {
    subscribe(room, handler) {
      if (closed) {
        throw new ChainpilotError('STREAM_CLOSED', `subscribe(${room}): the Datastream client is closed; create a new client`, {
          retry: 'not_retryable',
          context: { room },
        });
      }
      checkRoomName(room);
      const { sub, first } = router.add(room, handler);
      if (first) touch(room);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        if (router.remove(sub) && !closed) touch(room);
      };
    },
    rooms: () => [...router.rooms.keys()],
    get size() {
      return router.rooms.size;
    },
    joinAll() {
      joined.clear();
      wire.batch(() => {
        for (const room of router.rooms.keys()) write(room, true);
      });
    },
    close() {
      closed = true;
      if (flushTimer !== undefined) clearTimeout(flushTimer);
      flushTimer = undefined;
    },
  };
}
