/**
 * The Datastream client: one connection manager per endpoint, reference-counted rooms, typed and
 * checked payloads, deduplication across overlapping rooms, bounded delivery queues, gap events and
 * REST backfill. It satisfies the engine's `StreamFeed` port structurally.
 */
import { isUtf8 } from 'node:buffer';
import { ChainpilotError, type UnixMs } from '../../core/index.js';
import { backfillRoom } from './backfill/backfill.js';
import { createConnection, type ConnectionState } from './connection/connection.js';
import { exceedsDepth, mayExceedDepth } from './connection/frame-limits.js';
import type { Handler } from './delivery/subscriber.js';
import type { DatastreamEvent } from './events.js';
import { resolveOptions, type DatastreamClientOptions } from './options.js';
import { createRoomRouter, type RoomEntry } from './delivery/room-router.js';
import type { Room } from './rooms/rooms.js';
import type { FamilyName } from './rooms/room-family.js';
import { createStats, type DatastreamStats } from './stats.js';
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
  /** Frames received so far (`stats().frames` without copying every counter): cheap enough to poll. */
  framesReceived(): number;
  /** Resolves when every backfill started so far has finished (for tests and orderly shutdown). */
  backfillsIdle(): Promise<void>;
  /** Final: closes the socket, aborts backfills, never reconnects. */
  close(): void;
}

const AUTH_TEXT = /auth|api.?key|unauthori[sz]ed|forbidden|invalid.?key|not allowed/i;

/** Creates a client and starts connecting. */
export function createDatastreamClient(options: DatastreamClientOptions): DatastreamClient {
  const o = resolveOptions(options);
  const clock = o.clock;
  const book = createStats();
  const s = book.s;
  const eventHandlers = new Set<(e: DatastreamEvent) => void>();
  const gapHandlers = new Set<(g: StreamGap) => void>();
  const waiters = new Set<{ resolve: () => void; reject: (e: Error) => void }>();
  const backfills = new Set<Promise<void>>();
  const abort = new AbortController();
  let gapStartedAt: UnixMs | undefined;
  let closed = false;
  let stoppedError: ChainpilotError | undefined;

  const emit = (e: DatastreamEvent): void => {
    for (const h of eventHandlers) {
      try {
        h(e);
      } catch {
        // an event listener's failure must not break the socket loop; counted with handler errors
        s.handlerErrors++;
      }
    }
  };

  const router = createRoomRouter({ maxQueue: o.maxQueue, overflow: o.overflow, dedupCapacity: o.dedupCapacity }, book, {
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
  });

  const onRawFrame = o.onRawFrame;
  const malformed = (reason: string, text: string): void => {
    s.parseFailures++;
    book.reject('frame', '', reason, 1);
    emit({ kind: 'malformed', reason, sample: text.slice(0, 200) });
  };

  // Frames of one socket read are decoded and parsed as the socket hands them over, and handled (checks,
  // dedup, delivery, counters, reports) together when the read ends (connection.ts: readEnd), in
  // order, at most MAX_BATCH at a time. Why: the guard, fingerprint, dedup window and dispatch then
  // run one frame after another while their code, branch history and tables are still in the CPU's
  // caches; interleaved with framing and JSON.parse they cost about twice as much (liquidity: about
  // 600 ns a frame instead of 340 in a tight loop of the same work). A read that carries one frame
  // is handled at its end as before; in a burst, the first frame of a batch waits for the parsing
  // of the others (MAX_BATCH bounds that: about 50 µs of parsing for liquidity frames).
  const MAX_BATCH = 32;
  const NOT_JSON: unknown = Symbol('not JSON');
  const NOT_UTF8: unknown = Symbol('not valid UTF-8');
  const batchText: string[] = [];
  const batchFrame: unknown[] = [];
  const batchBytes: number[] = [];
  const batchAt: UnixMs[] = [];
  let batchSize = 0;
  let handling = false;
  // With `sliceMs` (see options.ts) a read's frames are handled for at most that long per event-loop
  // turn; the rest wait, in order, from `head`, for the next turns (`resumeQueued`). Frames count as
  // received (`framesReceived`) when handled, so a lockstep driver waits for them.
  const sliceMs = o.sliceMs;
  let head = 0;
  let resumeQueued = false;
  let sliceUntil = 0;

  const receiveFrame = (buf: Buffer, start: number, end: number, at: UnixMs): void => {
    let text: string;
    let frame: unknown;
    try {
      text = buf.toString('utf8', start, end);
      // The socket does not validate UTF-8 (frame-socket.ts). The decoder turns every
      // invalid sequence into U+FFFD, so a text without one came from valid UTF-8; only a text with one
      // (invalid, or a U+FFFD the server meant) has its bytes checked. For a Latin-1 text (JSON frames
      // almost always are) V8 answers this search without scanning: U+FFFD cannot occur in it.
      if (text.indexOf('\uFFFD') >= 0 && !isUtf8(buf.subarray(start, end))) frame = NOT_UTF8;
      else {
        try {
          frame = JSON.parse(text);
        } catch {
          frame = NOT_JSON;
        }
      }
    } catch (e) {
      // this runs inside the socket's read: nothing may escape into it
      handleBatch(); // the frames before it first
      s.frames++;
      frameFailed(e);
      return;
    }
    const i = batchSize++;
    batchText[i] = text;
    batchFrame[i] = frame;
    batchBytes[i] = end - start;
    batchAt[i] = at;
    if (batchSize - head >= MAX_BATCH && !handling) handleSlice();
  };

  /**
   * Handles the received frames in order from `head`; anything that happens after them (socket
   * events, close) calls it without `until` first, which handles every one. With `until`
   * (`performance.now()` deadline) it stops after the frame that reaches it and keeps the rest.
   */
  const handleBatch = (until?: number): void => {
    if (handling) return; // a handler's call re-entered: the running loop takes every frame in order
    handling = true;
    let i = head;
    try {
      while (i < batchSize) {
        const text = batchText[i]!;
        const frame = batchFrame[i];
        const bytes = batchBytes[i]!;
        const at = batchAt[i]!;
        batchText[i] = '';
        batchFrame[i] = undefined;
        i++;
        if (closed) continue; // close() from a handler: the rest of the read is dropped, as the socket would have dropped it
        onFrame(text, frame, bytes, at);
        if (until !== undefined && i < batchSize && performance.now() >= until) break;
      }
    } finally {
      if (i >= batchSize) batchSize = head = 0;
      else head = i;
      handling = false;
    }
  };

  /** At most MAX_BACKLOG frames wait for later turns: beyond, a read is handled in full (memory stays bounded). */
  const MAX_BACKLOG = 8_192;
  const resume = (): void => {
    resumeQueued = false;
    handleSlice();
    sliceUntil = 0;
  };
  /** The end of a read (or a full batch of it): every frame without `sliceMs`, else this turn's slice. */
  const handleSlice = (): void => {
    if (sliceMs === undefined || batchSize - head > MAX_BACKLOG) {
      handleBatch();
      return;
    }
    if (resumeQueued) return; // earlier frames wait for a later turn: these wait behind them
    if (sliceUntil === 0) sliceUntil = performance.now() + sliceMs;
    handleBatch(sliceUntil);
    if (head < batchSize && !closed) {
      resumeQueued = true;
      setImmediate(resume);
    }
  };
  const readEnd = (): void => {
    handleSlice();
    sliceUntil = 0;
  };

  const frameFailed = (e: unknown): void => {
    s.frameErrors++;
    emit({
      kind: 'malformed',
      reason: `handling the frame failed (${e instanceof Error ? `${e.name}: ${e.message}` : 'error'}); it was skipped`,
      sample: '',
    });
  };

  /** No frame of any size, depth or shape may stop the process: whatever slips past the checks is counted and reported. */
  const onFrame = (text: string, frame: unknown, bytes: number, at: UnixMs): void => {
    try {
      handleFrame(text, frame, bytes, at);
    } catch (e) {
      frameFailed(e);
    }
  };

  const handleFrame = (text: string, frame: unknown, bytes: number, at: UnixMs): void => {
    s.frames++;
    s.bytes += bytes;
    if (frame === NOT_UTF8) {
      malformed('not valid UTF-8', text);
      return;
    }
    if (onRawFrame !== undefined) {
      try {
        onRawFrame(text, at);
      } catch (e) {
        s.handlerErrors++;
        emit({ kind: 'handler-error', room: '(raw frame)', error: e });
      }
    }
    if (frame === NOT_JSON) {
      malformed('not JSON', text);
      return;
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame) || typeof (frame as { type?: unknown }).type !== 'string') {
      malformed('not an object with a string type', text);
      return;
    }
    if (mayExceedDepth(text, o.maxFrameDepth) && exceedsDepth(frame, o.maxFrameDepth)) {
      s.tooDeepFrames++;
      const reason = `nested deeper than maxFrameDepth (${o.maxFrameDepth})`;
      book.reject('frame', '', reason, 1);
      emit({ kind: 'malformed', reason, sample: text.slice(0, 200) });
      return;
    }
    const f = frame as Record<string, unknown>;
    switch (f.type) {
      case 'message': {
        s.messages++;
        const room = f.room;
        const entry = typeof room === 'string' ? router.lookup(room) : undefined;
        if (entry === undefined) {
          if (typeof room !== 'string') malformed('message without a string room', text);
          else s.unroutedMessages++;
          return;
        }
        router.route(entry, f.data, at, 'live');
        return;
      }
      case 'ping':
        s.pings++;
        conn.send({ type: 'pong' });
        return;
      case 'error':
        s.serverErrors++;
        if (AUTH_TEXT.test(text)) conn.noteAuthError();
        emit({ kind: 'server-error', frame: f });
        return;
      default:
        s.unknownFrames++;
        emit({ kind: 'unknown-frame', frameType: f.type as string, frame: f });
    }
  };

  const startBackfills = (gap: StreamGap): void => {
    const source = o.backfill;
    if (!source) return;
    for (const room of gap.rooms) {
      const entry = router.rooms.get(room);
      if (!entry?.resolved.backfill) continue;
      const p = runBackfill(entry, gap.startedAt).finally(() => backfills.delete(p));
      backfills.add(p);
    }
  };

  const runBackfill = async (entry: RoomEntry, since: UnixMs): Promise<void> => {
    const source = o.backfill;
    if (!source) return;
    // one child signal per run: listeners that fetch adds to it die with it, never pile up on the client's signal
    const run = new AbortController();
    const onAbort = (): void => run.abort();
    abort.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const r = await backfillRoom(
        {
          source,
          clock,
          random: o.random,
          overlapMs: o.backfillOverlapMs,
          pageLimit: o.backfillPageLimit,
          maxPages: o.backfillMaxPages,
          retries: o.backfillRetries,
          backoffBaseMs: o.backoffBaseMs,
          backoffCapMs: o.backoffCapMs,
        },
        entry,
        since,
        (rows, at) => {
          // the room may have been left (and even re-joined) while the page was in flight
          const current = router.rooms.get(entry.resolved.name.room);
          if (current === undefined) return 0;
          const n = router.route(current, rows, at, 'backfill');
          s.backfilledRows += n;
          current.stats.backfilled += n;
          return n;
        },
        run.signal,
      );
      emit({ kind: 'backfill-done', room: entry.resolved.name.room, rows: r.rows, pages: r.pages, truncated: r.truncated });
    } catch (e) {
      if (closed) return;
      s.backfillFailures++;
      const err =
        e instanceof ChainpilotError
          ? e
          : new ChainpilotError('STREAM_BACKFILL_FAILED', `backfill of room ${entry.resolved.name.room} failed`, { retry: 'retryable', cause: e });
      emit({ kind: 'backfill-failed', room: entry.resolved.name.room, error: err });
    } finally {
      abort.signal.removeEventListener('abort', onAbort);
    }
  };

  /**
   * Joins and leaves are written after the caller's turn (one setImmediate for all of them), not
   * inside subscribe(): a strategy that buys a token without a price joins its price room while
   * the frame that decided the buy is still being handled, and the join's frame write (mask, JSON,
   * socket write) is then off that decision's path. Rooms touched meanwhile are compared with what
   * the server was told on this socket, so a join and leave of the same room in one turn write
   * nothing, and a reconnect (which joins every subscribed room) leaves nothing to repeat.
   */
  const touchedRooms = new Set<string>();
  const joinedOnSocket = new Set<string>();
  let writeQueued = false;
  const writeRooms = (): void => {
    writeQueued = false;
    for (const room of touchedRooms) {
      const want = router.rooms.has(room);
      if (closed || want === joinedOnSocket.has(room)) continue;
      if (!conn.send({ type: want ? 'join' : 'leave', room })) continue; // not open: the next open joins what is subscribed
      if (want) joinedOnSocket.add(room);
      else joinedOnSocket.delete(room);
    }
    touchedRooms.clear();
  };
  const touchRoom = (room: string): void => {
    touchedRooms.add(room);
    if (writeQueued) return;
    writeQueued = true;
    setImmediate(writeRooms);
  };

  const conn = createConnection(o, {
    open() {
      handleBatch();
      const at = clock.now();
      s.connects++;
      joinedOnSocket.clear();
      for (const room of router.rooms.keys()) if (conn.send({ type: 'join', room })) joinedOnSocket.add(room);
      emit({ kind: 'connected', at, rooms: router.rooms.size });
      if (gapStartedAt !== undefined) {
        const gap: StreamGap = { startedAt: gapStartedAt, endedAt: at, rooms: [...router.rooms.keys()] };
        gapStartedAt = undefined;
        s.reconnects++;
        s.gaps++;
        const ms = gap.endedAt - gap.startedAt;
        s.gapMsTotal += ms;
        if (ms > s.gapMsMax) s.gapMsMax = ms;
        emit({ kind: 'gap', gap });
        for (const h of gapHandlers) {
          try {
            h(gap);
          } catch (e) {
            s.handlerErrors++;
            emit({ kind: 'handler-error', room: '(gap)', error: e });
          }
        }
        startBackfills(gap);
      }
      for (const w of waiters) w.resolve();
      waiters.clear();
    },
    message: receiveFrame,
    readEnd,
    frameTooLarge(fragments) {
      handleBatch(); // the frames before it first
      s.frames++;
      s.oversizedFrames++;
      const what = fragments === true ? 'a message in more frames than one message may take' : `frame larger than maxFrameBytes (${o.maxFrameBytes})`;
      emit({ kind: 'malformed', reason: `${what}; the socket was closed and will reconnect`, sample: '' });
    },
    down(reason, at) {
      handleBatch();
      gapStartedAt ??= at;
      emit({ kind: 'disconnected', at, reason });
    },
    attemptFailed(reason, detail) {
      handleBatch();
      s.failedAttempts++;
      emit({ kind: 'attempt-failed', reason, detail });
    },
    stopped(error) {
      handleBatch();
      stoppedError = error;
      emit({ kind: 'stopped', error });
      for (const w of waiters) w.reject(error);
      waiters.clear();
    },
  });

  const client: DatastreamClient = {
    subscribe(room: string, handler: Handler<DatastreamMessage>): () => void {
      if (closed) {
        throw new ChainpilotError('STREAM_CLOSED', `subscribe(${room}): the Datastream client is closed; create a new client`, {
          retry: 'not_retryable',
          context: { room },
        });
      }
      if (typeof room !== 'string' || room.length === 0 || /\s/.test(room)) {
        throw new ChainpilotError('STREAM_INVALID_ROOM', 'room: must be a non-empty string without spaces; use the `rooms` builders', {
          retry: 'not_retryable',
          context: { field: 'room' },
        });
      }
      const { sub, first } = router.add(room, handler);
      if (first) touchRoom(room);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        if (router.remove(sub) && !closed) touchRoom(room);
      };
    },
    onGap(handler) {
      gapHandlers.add(handler);
      return () => void gapHandlers.delete(handler);
    },
    onEvent(handler) {
      eventHandlers.add(handler);
      return () => void eventHandlers.delete(handler);
    },
    whenOpen(signal) {
      if (conn.state === 'open') return Promise.resolve();
      if (closed) return Promise.reject(new ChainpilotError('STREAM_CLOSED', 'whenOpen: the Datastream client is closed', { retry: 'not_retryable' }));
      if (stoppedError) return Promise.reject(stoppedError);
      return new Promise((resolve, reject) => {
        const w = {
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          reject: (e: Error) => {
            signal?.removeEventListener('abort', onAbort);
            reject(e);
          },
        };
        const onAbort = (): void => {
          waiters.delete(w);
          reject(new ChainpilotError('CORE_ABORTED', 'whenOpen was aborted', { retry: 'not_retryable' }));
        };
        if (signal?.aborted) {
          onAbort();
          return;
        }
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.add(w);
      });
    },
    get state() {
      return conn.state;
    },
    rooms: () => [...router.rooms.keys()],
    stats: () => ({ ...book.snapshot(), liveSockets: conn.liveSockets }),
    framesReceived: () => s.frames,
    async backfillsIdle() {
      while (backfills.size > 0) await Promise.allSettled([...backfills]);
    },
    close() {
      if (closed) return;
      closed = true;
      abort.abort();
      conn.close();
      const err = new ChainpilotError('STREAM_CLOSED', 'the Datastream client was closed', { retry: 'not_retryable' });
      for (const w of waiters) w.reject(err);
      waiters.clear();
      emit({ kind: 'closed' });
    },
  };
  conn.start();
  return client;
}
