/**
 * What the feed watch learns from the Datastream client's events: the connection's state, the
 * counters of each kind of problem, rejected payloads by room family, and the transient problems
 * (an overflowing delivery queue, a failed backfill) that hold the loss for `feed.staleAfter`. The
 * state is one explicit record ({@link FeedState}) that {@link applyFeedEvent} moves; the watch
 * (feed-watch.ts) adds the stale check and the frame rate on the run clock.
 */
import type { UnixMs } from '../../core/index.js';
import type { FeedHealth, FeedWatchSource } from './deployment-handle.js';

const MAX_FAMILIES = 64;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** `price:token:<mint>` → `price:token`; `latest` stays `latest`. */
export function roomFamily(room: string): string {
  return (
    room
      .split(':')
      .filter((s) => !BASE58.test(s))
      .join(':') || room
  );
}

/** The feed as the client's events describe it. */
export interface FeedState {
  state: FeedHealth['state'];
  connected: boolean;
  /** Receive time (run clock) of the last frame seen. */
  lastFrameAt: UnixMs | undefined;
  gaps: number;
  reconnects: number;
  dropped: number;
  backfillFailures: number;
  /** Why the client stopped for good. */
  stoppedCause: string | undefined;
  /** A transient problem (overflow, backfill failure) holds the loss until this run-clock time. */
  transientUntil: number;
  transientCause: string | undefined;
  /** Problems by kind (the watch's report). */
  readonly counters: Record<string, number>;
  /** Rejected payloads by room family, with a sample reason each (at most 64 families). */
  readonly rejectedByFamily: Map<string, { count: number; sample: string }>;
}

/** The state before any event: what the source says it is now (a replay, with no source, is open). */
export function initialFeedState(source: FeedWatchSource | undefined): FeedState {
  const state: FeedHealth['state'] =
    !source || source.state === 'open' ? 'open' : source.state === 'stopped' ? 'stopped' : source.state === 'backoff' ? 'reconnecting' : 'connecting';
  return {
    state,
    connected: state === 'open',
    lastFrameAt: undefined,
    gaps: 0,
    reconnects: 0,
    dropped: 0,
    backfillFailures: 0,
    stoppedCause: undefined,
    transientUntil: -Infinity,
    transientCause: undefined,
    counters: { stopped: 0, disconnected: 0, stale: 0, overflow: 0, backfillFailed: 0, rejected: 0, handlerErrors: 0 },
    rejectedByFamily: new Map(),
  };
}

/** What {@link applyFeedEvent} tells the watch. */
export interface FeedEventContext {
  /** Now on the run clock. */
  readonly at: UnixMs;
  readonly staleAfterMs: number;
  /** Counts a problem of `kind` and logs it once per `key`. */
  readonly problem: (kind: string, key: string, message: string, extra?: Record<string, unknown>) => void;
  /** The health changed without a problem (connected again). */
  readonly changed: () => void;
  /** A problem logged under `key` may be logged again (a disconnect after a reconnect). */
  readonly forget: (key: string) => void;
}

/** Moves `f` by one client event. */
export function applyFeedEvent(f: FeedState, e: { readonly kind: string } & Readonly<Record<string, unknown>>, c: FeedEventContext): void {
  switch (e.kind) {
    case 'connected':
      if (f.state !== 'connecting') f.reconnects++;
      f.state = 'open';
      f.connected = true;
      f.lastFrameAt = c.at;
      c.forget('disconnected');
      c.changed();
      return;
    case 'disconnected':
      f.state = 'reconnecting';
      f.connected = false;
      c.problem('disconnected', 'disconnected', `disconnected (${String(e['reason'])}); reconnecting`, { reason: e['reason'] });
      return;
    case 'stopped': {
      f.state = 'stopped';
      f.connected = false;
      const err = e['error'] as { code?: string; message?: string } | undefined;
      f.stoppedCause = `${err?.code ?? 'STREAM_STOPPED'}: ${err?.message ?? 'the Datastream client stopped'}`;
      c.problem('stopped', 'stopped', `stopped for good: ${f.stoppedCause}`);
      return;
    }
    case 'closed':
      f.state = 'closed';
      f.connected = false;
      return;
    case 'gap':
      f.gaps++;
      return;
    case 'overflow':
      f.dropped = Math.max(f.dropped, Number(e['droppedTotal'] ?? 0));
      f.transientUntil = c.at + c.staleAfterMs;
      f.transientCause = `delivery queue of ${String(e['room'])} overflowed (${String(e['droppedTotal'])} dropped)`;
      c.problem('overflow', `overflow:${roomFamily(String(e['room']))}`, f.transientCause, { room: e['room'] });
      return;
    case 'backfill-failed': {
      f.backfillFailures++;
      const err = e['error'] as { code?: string; message?: string } | undefined;
      f.transientUntil = c.at + c.staleAfterMs;
      f.transientCause = `backfill of ${String(e['room'])} failed (${err?.code ?? 'error'}: ${err?.message ?? ''}); events of the gap may be missing`;
      c.problem('backfillFailed', `backfill:${roomFamily(String(e['room']))}`, f.transientCause, { room: e['room'] });
      return;
    }
    case 'invalid-payload':
    case 'malformed':
      rejected(f, e, c);
      return;
    case 'handler-error':
      f.counters['handlerErrors'] = (f.counters['handlerErrors'] ?? 0) + 1;
      return;
    default:
  }
}

/** A rejected payload (or malformed frame): counted by family, logged once per family. */
function rejected(f: FeedState, e: { readonly kind: string } & Readonly<Record<string, unknown>>, c: FeedEventContext): void {
  const family = e.kind === 'malformed' ? '(malformed)' : roomFamily(String(e['room']));
  const n = e.kind === 'invalid-payload' ? Number(e['rejected'] ?? 1) : 1;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the client's reason is a string; String() guards a foreign value
  const reason = String(e['reason'] ?? '');
  const entry = f.rejectedByFamily.get(family);
  if (entry) entry.count += n;
  else if (f.rejectedByFamily.size < MAX_FAMILIES) f.rejectedByFamily.set(family, { count: n, sample: reason.slice(0, 200) });
  f.counters['rejected'] = (f.counters['rejected'] ?? 0) + n - 1;
  c.problem('rejected', `rejected:${family}`, `rejected ${e.kind === 'malformed' ? 'a malformed frame' : `a payload in ${family}`}: ${reason.slice(0, 200)}`, {
    family,
  });
}
