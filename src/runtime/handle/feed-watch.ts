/**
 * The runtime's watch over its market feed (design.md §4): it subscribes to the Datastream
 * client's events and reads its counters on the run clock, keeps a `FeedHealth`, and reports each
 * problem once with its cause (stopped, disconnected, stale, overflowing, failing backfill,
 * rejected payloads). Whether the feed is "lost" is a value; what to do about it is the
 * deployment's `feed.onLoss` policy, applied by the handle.
 */
import { createLifecycle, type Clock, type Lifecycle, type LifecycleHealth, type Logger, type TimerHandle, type UnixMs } from '../../core/index.js';
import type { StreamFeed, StreamMessage } from '../../engine/events/feed-port.js';
import type { FeedHealth, FeedWatchSource } from './deployment-handle.js';
import { applyFeedEvent, initialFeedState } from './feed-events.js';

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

/** Starts watching `source` (absent: a replay feed, whose health is what the engine sees). */
export function createFeedWatch(o: FeedWatchOptions): FeedWatch {
  const { clock, source, log } = o;
  /** What the client's events said of the feed (feed-events.ts). */
  const f = initialFeedState(source);
  const { counters } = f;
  const loggedOnce = new Set<string>();
  let lastStatsFrames = 0;
  let messages = 0;
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

  const unsubscribe = source?.onEvent((e) =>
    applyFeedEvent(f, e, {
      at: clock.now(),
      staleAfterMs: o.staleAfterMs,
      problem,
      changed: () => o.onChange(feedHealth(), undefined),
      forget: (key) => void loggedOnce.delete(key),
    }),
  );

  const check = (): void => {
    timer = undefined;
    if (stopped) return;
    const now = clock.now();
    const frames = totalFrames();
    if (frames > lastStatsFrames) {
      lastStatsFrames = frames;
      f.lastFrameAt = f.lastFrameAt === undefined || f.lastFrameAt < now ? now : f.lastFrameAt;
    }
    samples.push({ at: now, frames });
    if (samples.length > RATE_SAMPLES + 1) samples.shift();
    const age = f.lastFrameAt === undefined ? Infinity : now - f.lastFrameAt;
    const wasStale = stale;
    // A replay (no watch source) is never stale: its quiet stretches are the recording's.
    stale = source !== undefined && f.state === 'open' && age > o.staleAfterMs && !(o.caughtUp?.() ?? false) && f.lastFrameAt !== undefined;
    if (stale && !wasStale) problem('stale', `stale:${f.lastFrameAt!}`, `stale: no frame for ${age} ms (feed.staleAfter ${o.staleAfterMs} ms)`);
    if (!stale && wasStale) o.onChange(feedHealth(), undefined);
    if (f.transientCause !== undefined && now >= f.transientUntil) {
      f.transientCause = undefined;
      o.onChange(feedHealth(), undefined);
    }
    timer = clock.setTimeout(check, checkMs);
  };
  timer = clock.setTimeout(check, checkMs);

  const loss = (): FeedLoss | undefined => {
    if (f.state === 'stopped') return { code: 'RUNTIME_FEED_LOST', message: `the feed stopped: ${f.stoppedCause ?? 'unknown cause'}` };
    if (f.state === 'reconnecting') return { code: 'RUNTIME_FEED_LOST', message: 'the feed is disconnected; reconnecting' };
    if (f.state === 'closed') return { code: 'RUNTIME_FEED_LOST', message: 'the feed was closed' };
    if (stale) return { code: 'RUNTIME_FEED_LOST', message: `the feed is stale: no frame for more than ${o.staleAfterMs} ms` };
    if (f.transientCause !== undefined) return { code: 'RUNTIME_FEED_LOST', message: f.transientCause };
    return undefined;
  };
  const feedHealth = (): FeedHealth => {
    const first = samples[0];
    const last = samples[samples.length - 1];
    const span = first && last ? last.at - first.at : 0;
    const s = source?.stats?.();
    const rejectedFamilies: Record<string, { count: number; sample: string }> = {};
    for (const [k, v] of f.rejectedByFamily) rejectedFamilies[k] = { ...v };
    return {
      state: stale ? 'stale' : f.state,
      connected: f.connected,
      lastFrameAt: f.lastFrameAt,
      framesPerSec: first && last && span > 0 ? ((last.frames - first.frames) * 1000) / span : 0,
      frames: totalFrames(),
      gaps: s ? Math.max(f.gaps, s.gaps) : f.gaps,
      reconnects: s ? Math.max(f.reconnects, s.reconnects) : f.reconnects,
      rejected: s ? Math.max(counters['rejected'] ?? 0, s.parseFailures + s.invalidPayloads) : (counters['rejected'] ?? 0),
      rejectedByFamily: rejectedFamilies,
      dropped: s ? Math.max(f.dropped, s.dropped) : f.dropped,
      backfillFailures: s ? Math.max(f.backfillFailures, s.backfillFailures) : f.backfillFailures,
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
      if (f.lastFrameAt === undefined || at > f.lastFrameAt) f.lastFrameAt = at;
      if (stale) {
        stale = false;
        o.onChange(feedHealth(), undefined);
      }
    },
    counters: () => ({ ...counters }),
  };
  return watch;
}
