/**
 * The Datastream client: one connection manager per endpoint, reference-counted rooms, typed and
 * checked payloads, deduplication across overlapping rooms, bounded delivery queues, gap events and
 * REST backfill. It satisfies the engine's `StreamFeed` port structurally.
 *
 * This file composes the parts, each with its own state: the connection (connection/connection.ts)
 * with its gap tracker and open waiters; the frame intake and dispatch (delivery/frame-intake.ts,
 * delivery/frame-dispatch.ts) in front of the room router (delivery/room-router.ts); the
 * subscription book (rooms/subscription-book.ts); the backfill runner (backfill/backfill-runner.ts);
 * and the event hub (event-hub.ts). They share one stats book (stats.ts).
 */
import { createBackfillRunner } from './backfill/backfill-runner.js';
import { createConnection, type ConnectionState } from './connection/connection.js';
import { createGapTracker } from './connection/gap-tracker.js';
import { createOpenWaiters } from './connection/open-waiters.js';
import { createDeliveryQueue } from './delivery/delivery-queue.js';
import { createFrameDispatch } from './delivery/frame-dispatch.js';
import { createFrameIntake } from './delivery/frame-intake.js';
import { createRoomRouter, type RouterHooks } from './delivery/room-router.js';
import type { Handler } from './delivery/subscriber.js';
import { createEventHub } from './event-hub.js';
import type { DatastreamEvent } from './events.js';
import { resolveOptions, type DatastreamClientOptions } from './options.js';
import type { FamilyName } from './rooms/room-family.js';
import type { Room } from './rooms/rooms.js';
import { createSubscriptionBook } from './rooms/subscription-book.js';
import { createStats, type DatastreamStats, type StatsBook } from './stats.js';
import type { DatastreamMessage, StreamGap } from './stream-message.js';

export interface DatastreamClient {
  /** Joins `room` (one join however many subscribers) and calls `handler` for each message; returns the unsubscribe (the last one sends one leave). */
  subscribe<F extends FamilyName>(room: Room<F>, handler: Handler<DatastreamMessage<F>>): () => void;
  subscribe(room: string, handler: Handler<DatastreamMessage>): () => void;
  /** Calls `handler` for each gap after it closes (on reconnect). */
  onGap(handler: (gap: StreamGap) => void): () => void;
  /** Calls `handler` for every client event (connection, server errors, malformed frames, overflow...). */
  onEvent(handler: (event: DatastreamEvent) => void): () => void;
  /** Resolves when the socket is open (now or next time); rejects when the client is closed or stopped. */
  whenOpen(signal?: AbortSignal): Promise<void>;
  readonly state: ConnectionState;
  /** Rooms currently joined (or to be joined on connect). */
  rooms(): string[];
  stats(): DatastreamStats;
  /** Frames received so far (`stats().frames` without copying every counter, less a frame whose deliveries still wait): cheap enough to poll. */
  framesReceived(): number;
  /** Resolves when every backfill started so far has finished (for tests and orderly shutdown). */
  backfillsIdle(): Promise<void>;
  /** Final: closes the socket, aborts backfills, never reconnects. */
  close(): void;
}

/** Creates a client and starts connecting. */
export function createDatastreamClient(options: DatastreamClientOptions): DatastreamClient {
  const o = resolveOptions(options);
  const book = createStats();
  const s = book.s;
  const events = createEventHub(s);
  const emit = events.emit;
  // deliveries in bounded slices only when a read's frames are (sliceMs) and the owner allows pauses inside a frame
  const queue = o.sliceMs !== undefined && o.deliveriesMayPause ? createDeliveryQueue<DatastreamMessage>(o.deliveriesMayPause) : undefined;
  const router = createRoomRouter(
    { maxQueue: o.maxQueue, overflow: o.overflow, dedupCapacity: o.dedupCapacity, ...(queue ? { queue } : {}) },
    book,
    reportingHooks(book, emit),
  );
  // the connection is created last (its handlers use every part); the parts reach it through this
  const server = {
    send: (frame: object): boolean => conn.send(frame),
    batch: (sends: () => void): void => conn.batch(sends),
    noteAuthError: (): void => conn.noteAuthError(),
  };
  const dispatch = createFrameDispatch(o, { stats: book, router, server, emit });
  const intake = createFrameIntake({ sliceMs: o.sliceMs, handle: dispatch.handle, undecodable: dispatch.undecodable, ...(queue ? { queue } : {}) });
  const subscriptions = createSubscriptionBook(router, server, o.roomWriteWindowMs);
  const backfills = createBackfillRunner(o, { router, stats: book, emit });
  const gaps = createGapTracker(s);
  const waiters = createOpenWaiters();
  let closed = false;

  // Every socket event handles the frames received before it first (intake.flush).
  const conn = createConnection(o, {
    open() {
      intake.flush();
      const at = o.clock.now();
      s.connects++;
      subscriptions.joinAll();
      emit({ kind: 'connected', at, rooms: subscriptions.size });
      const gap = gaps.end(at, subscriptions.rooms);
      if (gap) {
        events.gap(gap);
        backfills.start(gap);
      }
      waiters.opened();
    },
    message: intake.receive,
    readEnd: intake.readEnd,
    frameTooLarge(fragments) {
      intake.flush();
      dispatch.tooLarge(fragments);
    },
    down(reason, at) {
      intake.flush();
      gaps.down(at);
      emit({ kind: 'disconnected', at, reason });
    },
    attemptFailed(reason, detail) {
      intake.flush();
      s.failedAttempts++;
      emit({ kind: 'attempt-failed', reason, detail });
    },
    stopped(error) {
      intake.flush();
      waiters.stopped(error);
      emit({ kind: 'stopped', error });
    },
  });

  const client: DatastreamClient = {
    subscribe: (room: string, handler: Handler<DatastreamMessage>) => subscriptions.subscribe(room, handler),
    onGap: events.onGap,
    onEvent: events.onEvent,
    whenOpen: (signal) => waiters.wait(conn.state === 'open', signal),
    get state() {
      return conn.state;
    },
    rooms: subscriptions.rooms,
    stats: () => ({ ...book.snapshot(), liveSockets: conn.liveSockets }),
    // a frame whose deliveries wait for a later turn (with `deliveriesMayPause`) is not received yet
    framesReceived: () => (queue !== undefined && queue.waiting() > 0 ? s.frames - 1 : s.frames),
    backfillsIdle: backfills.idle,
    close() {
      if (closed) return;
      closed = true;
      subscriptions.close();
      intake.close();
      backfills.abort();
      conn.close();
      waiters.close();
      emit({ kind: 'closed' });
    },
  };
  conn.start();
  return client;
}

/** Delivery outcomes (handler failures, overflow, drops, coalescing, invalid payloads) counted and reported. */
function reportingHooks(book: StatsBook, emit: (event: DatastreamEvent) => void): RouterHooks {
  const s = book.s;
  return {
    onHandlerError(room, error) {
      s.handlerErrors++;
      emit({ kind: 'handler-error', room, error });
    },
    onOverflow(room, droppedTotal) {
      emit({ kind: 'overflow', room, droppedTotal });
    },
    countDropped(room, n) {
      s.dropped += n;
      const r = book.existing(room);
      if (r) r.dropped += n;
    },
    countCoalesced(room, n) {
      s.coalesced += n;
      const r = book.existing(room);
      if (r) r.coalesced += n;
    },
    invalid(room, reason, rejected) {
      emit({ kind: 'invalid-payload', room, reason, rejected });
    },
  };
}
