/**
 * The runtime's watch over its market feed (design.md §4): it subscribes to the Datastream
 * client's events and reads its counters on the run clock, keeps a `FeedHealth`, and reports each
 * problem once with its cause (stopped, disconnected, stale, overflowing, failing backfill,
 * rejected payloads). Whether the feed is "lost" is a value; what to do about it is the
 * deployment's `feed.onLoss` policy, applied by the handle.
 */
import { createLifecycle, type Clock, type Lifecycle, type LifecycleHealth, type Logger, type TimerHandle, type UnixMs } from '../../core/index.js';
import type { StreamFeed, StreamMessage } from '../../engine/feed-port.js';
import type { FeedHealth, FeedWatchSource } from './deployment-handle.js';

/**
 * `feed` with `seen` told of every delivered message. One wrapper per handler, whatever the room:
 * the Datastream client deduplicates an event per handler, so the same handler on overlapping
 * rooms (a token's trades and a wallet's) gets it once, as it does on a replay feed in a backtest;
 * a wrapper per subscription would make each room a different handler and deliver it twice.
 */
export function seenFeed(feed: StreamFeed, seen: (msg: StreamMessage) => void): StreamFeed {
  const wrappers = new WeakMap<(msg: StreamMessage) => void, (msg: StreamMessage) => void>();
  return {
    subscribe(room, handler) {
      let wrapped = wrappers.get(handler);
      if (wrapped === undefined) {
        wrapped = (msg) => {
          seen(msg);
          handler(msg);
        };
        wrappers.set(handler, wrapped);
      }
      return feed.subscribe(room, wrapped);
    },
    onGap: (handler) => feed.onGap(handler),
  };
}

/** Why entries should stop: the first loss condition found, as a coded cause. */
export interface FeedLoss {
  readonly code: 'RUNTIME_FEED_LOST';
  readonly message: string;
}

/** The watch's own health: ready while the feed shows no loss; `feed` is what it watches. */
export interface FeedWatchHealth extends LifecycleHealth {
  readonly feed: FeedHealth;
}

/** Counters of problems, by kind (as `counters()`), when the watch stopped. */
export type FeedWatchReport = Readonly<Record<string, number>>;

/**
 * A {@link Lifecycle} built running (it watches from creation); `stop` unsubscribes and clears its
 * timer (nothing to drain).
 */
export interface FeedWatch extends Lifecycle<FeedWatchReport, FeedWatchHealth> {
  /** The current loss condition, or undefined when the feed is healthy. */
  loss(): FeedLoss | undefined;
  /** Notes one delivered message (receivedAt on the run clock). */
  messageSeen(at: UnixMs): void;
  /** Counters of problems, by kind (for stats and metrics). */
  counters(): FeedWatchReport;
}

export interface FeedWatchOptions {
  readonly clock: Clock;
  readonly source: FeedWatchSource | undefined;
  /** No frame for this long on the run clock: stale. */
  readonly staleAfterMs: number;
  readonly log: Logger;
  /** Called on every health change that matters (state, loss start or end, first problem of a kind). */
  readonly onChange: (health: FeedHealth, problem: { readonly kind: string; readonly message: string } | undefined) => void;
  /**
   * True when the server has nothing unsent for us (the embedded simulator in process): a quiet
   * but caught-up feed is not stale.
   */
  readonly caughtUp?: () => boolean;
}

/** Frames-per-second window, in samples of the check interval. */
const RATE_SAMPLES = 5;
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

/** Starts watching `source` (absent: a replay feed, whose health is what the engine sees). */
export function createFeedWatch(o: FeedWatchOptions): FeedWatch {
  const { clock, source, log } = o;
  const counters: Record<string, number> = { stopped: 0, disconnected: 0, stale: 0, overflow: 0, backfillFailed: 0, rejected: 0, handlerErrors: 0 };
  const rejectedByFamily = new Map<string, { count: number; sample: string }>();
  const loggedOnce = new Set<string>();
  let state: FeedHealth['state'] =
    !source || source.state === 'open' ? 'open' : source.state === 'stopped' ? 'stopped' : source.state === 'backoff' ? 'reconnecting' : 'connecting';
  let connected = state === 'open';
  let lastFrameAt: UnixMs | undefined;
  let lastStatsFrames = 0;
  let messages = 0;
  let gaps = 0;
  let reconnects = 0;
  let dropped = 0;
  let backfillFailures = 0;
  let stoppedCause: string | undefined;
  /** Transient problems (overflow, backfill failure) hold the loss until this run-clock time. */
  let transientUntil = -Infinity;
  let transientCause: string | undefined;
  let stale = false;
  const samples: { at: number; frames: number }[] = [];
  let timer: TimerHandle | undefined;
  let stopped = false;
  const checkMs = Math.max(1, Math.min(1_000, Math.floor(o.staleAfterMs / 4)));

  const totalFrames = (): number => {
    // polled by the stale check of every deployment of a shared connection: the one counter, not a copy of all
    const n = source?.framesReceived?.() ?? source?.stats?.().frames;
    return n === undefined ? messages : Math.max(n, messages);
  };

  /** Counts a problem, logs it once per `key`; a loss-relevant one always re-evaluates the policy. */
  const problem = (kind: string, key: string, message: string, extra: Record<string, unknown> = {}): void => {
    counters[kind] = (counters[kind] ?? 0) + 1;
    const first = !loggedOnce.has(key);
    if (first) {
      loggedOnce.add(key);
      log.warn({ feedProblem: kind, ...extra }, `feed: ${message}`);
    }
    if (first || kind !== 'rejected') o.onChange(feedHealth(), first ? { kind, message } : undefined);
  };

  const onEvent = (e: { readonly kind: string } & Readonly<Record<string, unknown>>): void => {
    const at = clock.now();
    switch (e.kind) {
      case 'connected':
        if (state !== 'connecting') reconnects++;
        state = 'open';
        connected = true;
        lastFrameAt = at;
        loggedOnce.delete('disconnected');
        o.onChange(feedHealth(), undefined);
        return;
      case 'disconnected':
        state = 'reconnecting';
        connected = false;
        problem('disconnected', 'disconnected', `disconnected (${String(e['reason'])}); reconnecting`, { reason: e['reason'] });
        return;
      case 'stopped': {
        state = 'stopped';
        connected = false;
        const err = e['error'] as { code?: string; message?: string } | undefined;
        stoppedCause = `${err?.code ?? 'STREAM_STOPPED'}: ${err?.message ?? 'the Datastream client stopped'}`;
        problem('stopped', 'stopped', `stopped for good: ${stoppedCause}`);
        return;
      }
      case 'closed':
        state = 'closed';
        connected = false;
        return;
      case 'gap':
        gaps++;
        return;
      case 'overflow':
        dropped = Math.max(dropped, Number(e['droppedTotal'] ?? 0));
        transientUntil = at + o.staleAfterMs;
        transientCause = `delivery queue of ${String(e['room'])} overflowed (${String(e['droppedTotal'])} dropped)`;
        problem('overflow', `overflow:${roomFamily(String(e['room']))}`, transientCause, { room: e['room'] });
        return;
      case 'backfill-failed': {
        backfillFailures++;
        const err = e['error'] as { code?: string; message?: string } | undefined;
        transientUntil = at + o.staleAfterMs;
        transientCause = `backfill of ${String(e['room'])} failed (${err?.code ?? 'error'}: ${err?.message ?? ''}); events of the gap may be missing`;
        problem('backfillFailed', `backfill:${roomFamily(String(e['room']))}`, transientCause, { room: e['room'] });
        return;
      }
      case 'invalid-payload':
      case 'malformed': {
        const family = e.kind === 'malformed' ? '(malformed)' : roomFamily(String(e['room']));
        const n = e.kind === 'invalid-payload' ? Number(e['rejected'] ?? 1) : 1;
        // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the client's reason is a string; String() guards a foreign value
        const reason = String(e['reason'] ?? '');
        const entry = rejectedByFamily.get(family);
        if (entry) entry.count += n;
        else if (rejectedByFamily.size < MAX_FAMILIES) rejectedByFamily.set(family, { count: n, sample: reason.slice(0, 200) });
        counters['rejected'] = (counters['rejected'] ?? 0) + n - 1;
        problem(
          'rejected',
          `rejected:${family}`,
          `rejected ${e.kind === 'malformed' ? 'a malformed frame' : `a payload in ${family}`}: ${reason.slice(0, 200)}`,
          { family },
        );
        return;
      }
      case 'handler-error':
        counters['handlerErrors'] = (counters['handlerErrors'] ?? 0) + 1;
        return;
      default:
    }
  };
  const unsubscribe = source?.onEvent(onEvent);

  const check = (): void => {
    timer = undefined;
    if (stopped) return;
    const now = clock.now();
    const frames = totalFrames();
    if (frames > lastStatsFrames) {
      lastStatsFrames = frames;
      lastFrameAt = lastFrameAt === undefined || lastFrameAt < now ? now : lastFrameAt;
    }
    samples.push({ at: now, frames });
    if (samples.length > RATE_SAMPLES + 1) samples.shift();
    const age = lastFrameAt === undefined ? Infinity : now - lastFrameAt;
    const wasStale = stale;
    // A replay (no watch source) is never stale: its quiet stretches are the recording's.
    stale = source !== undefined && state === 'open' && age > o.staleAfterMs && !(o.caughtUp?.() ?? false) && lastFrameAt !== undefined;
    if (stale && !wasStale) problem('stale', `stale:${lastFrameAt!}`, `stale: no frame for ${age} ms (feed.staleAfter ${o.staleAfterMs} ms)`);
    if (!stale && wasStale) o.onChange(feedHealth(), undefined);
    if (transientCause !== undefined && now >= transientUntil) {
      transientCause = undefined;
      o.onChange(feedHealth(), undefined);
    }
    timer = clock.setTimeout(check, checkMs);
  };
  timer = clock.setTimeout(check, checkMs);

  const loss = (): FeedLoss | undefined => {
    if (state === 'stopped') return { code: 'RUNTIME_FEED_LOST', message: `the feed stopped: ${stoppedCause ?? 'unknown cause'}` };
    if (state === 'reconnecting') return { code: 'RUNTIME_FEED_LOST', message: 'the feed is disconnected; reconnecting' };
    if (state === 'closed') return { code: 'RUNTIME_FEED_LOST', message: 'the feed was closed' };
    if (stale) return { code: 'RUNTIME_FEED_LOST', message: `the feed is stale: no frame for more than ${o.staleAfterMs} ms` };
    if (transientCause !== undefined) return { code: 'RUNTIME_FEED_LOST', message: transientCause };
    return undefined;
  };
  const feedHealth = (): FeedHealth => {
    const first = samples[0];
    const last = samples[samples.length - 1];
    const span = first && last ? last.at - first.at : 0;
    const s = source?.stats?.();
    const rejectedFamilies: Record<string, { count: number; sample: string }> = {};
    for (const [k, v] of rejectedByFamily) rejectedFamilies[k] = { ...v };
    return {
      state: stale ? 'stale' : state,
      connected,
      lastFrameAt,
      framesPerSec: first && last && span > 0 ? ((last.frames - first.frames) * 1000) / span : 0,
      frames: totalFrames(),
      gaps: s ? Math.max(gaps, s.gaps) : gaps,
      reconnects: s ? Math.max(reconnects, s.reconnects) : reconnects,
      rejected: s ? Math.max(counters['rejected'] ?? 0, s.parseFailures + s.invalidPayloads) : (counters['rejected'] ?? 0),
      rejectedByFamily: rejectedFamilies,
      dropped: s ? Math.max(dropped, s.dropped) : dropped,
      backfillFailures: s ? Math.max(backfillFailures, s.backfillFailures) : backfillFailures,
    };
  };
  const life = createLifecycle(
    {
      name: 'feed watch',
      halt: () => {
        stopped = true;
        unsubscribe?.();
        if (timer) clock.clearTimeout(timer);
        timer = undefined;
        return Promise.resolve();
      },
      report: () => ({ ...counters }),
      notReady: () => {
        const l = loss();
        return l ? [l.message] : [];
      },
    },
    { log: log, clock, defaultDrainMs: 0, running: true },
  );

  const watch: FeedWatch = {
    start: () => life.start(),
    stop: (options) => life.stop(options),
    done: () => life.done(),
    health: () => ({ ...life.health(), feed: feedHealth() }),
    loss,
    messageSeen(at) {
      messages++;
      if (lastFrameAt === undefined || at > lastFrameAt) lastFrameAt = at;
      if (stale) {
        stale = false;
        o.onChange(feedHealth(), undefined);
      }
    },
    counters: () => ({ ...counters }),
  };
  return watch;
}
