/**
 * `ctx.track(mint, { rooms, ttlMs, state })`: per-token state and rooms that end together. A tracked
 * token's rooms are joined with it and left when it ends: after `ttlMs` on the run clock, after a
 * fill or a failed intent of this strategy on the token (once `onFill` / `onIntentFailed` returned),
 * or on `ctx.untrack(mint)`. What strategies wrote by hand for every candidate token.
 */
import { ChainpilotError, type Clock, type Logger, type TimerHandle, type UnixMs } from '../../core/index.js';

/** Tokens one strategy tracks at once (as many as rooms it may watch). */
export const MAX_TRACKED = 1_000;
/** The longest tracking (7 d). */
export const MAX_TRACK_TTL_MS = 7 * 86_400_000;

/** Options of `ctx.track`. */
export interface TrackOptions<T> {
  /** How long to track the token on the run clock (1 ms to 7 d); tracking it again re-arms it. */
  readonly ttlMs: number;
  /** Rooms joined for the token and left when tracking ends (rooms already watched otherwise stay). */
  readonly rooms?: readonly string[];
  /** The token's initial state (default `{}`); kept while tracked, mutable. */
  readonly state?: T;
}

/** A tracked token: its state, and when tracking began and ends. */
export interface Tracked<T = Record<string, unknown>> {
  readonly mint: string;
  readonly since: UnixMs;
  readonly expiresAt: UnixMs;
  readonly state: T;
}

/** Why tracking ended. */
export type TrackEnd = 'expired' | 'fill' | 'failure' | 'untracked';

interface Entry {
  mint: string;
  since: UnixMs;
  expiresAt: UnixMs;
  state: unknown;
  timer: TimerHandle;
  /** Rooms this tracking joined (left when it ends). */
  rooms: string[];
}

export interface TrackingDeps {
  readonly strategyId: string;
  readonly clock: Clock;
  readonly log: Logger;
  /** Joins a room for the strategy; false when it was already watched (tracking then does not own it). */
  readonly join: (room: string) => boolean;
  readonly leave: (room: string) => void;
}

export interface Tracking {
  track<T>(mint: string, o: TrackOptions<T>): Tracked<T>;
  tracked<T>(mint: string): Tracked<T> | undefined;
  /** Ends the tracking of `mint`, if any: leaves its rooms and forgets its state. */
  end(mint: string, why: TrackEnd): void;
  size(): number;
  /** Cancels every expiry timer (the engine is stopping; rooms are released by the runner). */
  stop(): void;
}

const view = <T>(e: Entry): Tracked<T> => ({ mint: e.mint, since: e.since, expiresAt: e.expiresAt, state: e.state as T });

export function createTracking(d: TrackingDeps): Tracking {
  const { clock } = d;
  const entries = new Map<string, Entry>();

  const tracking: Tracking = {
    track<T>(mint: string, o: TrackOptions<T>): Tracked<T> {
      const ttl = o.ttlMs;
      if (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > MAX_TRACK_TTL_MS)
        throw new ChainpilotError(
          'STRATEGY_BAD_ARGUMENT',
          `ctx.track ttlMs: got ${String(ttl)}; pass an integer number of milliseconds from 1 to ${MAX_TRACK_TTL_MS} (7 days)`,
          { retry: 'not_retryable', context: { what: 'ctx.track ttlMs' } },
        );
      const existing = entries.get(mint);
      if (existing !== undefined) clock.clearTimeout(existing.timer);
      else if (entries.size >= MAX_TRACKED)
        throw new ChainpilotError(
          'STRATEGY_TOO_MANY_ROOMS',
          `strategy ${d.strategyId} tracks ${MAX_TRACKED} tokens; untrack some first, or track with a shorter ttlMs`,
          {
            retry: 'not_retryable',
            context: { strategyId: d.strategyId },
          },
        );
      const now = clock.now();
      const timer = clock.setTimeout(() => tracking.end(mint, 'expired'), ttl);
      const expiresAt = (now + ttl) as UnixMs;
      const entry: Entry = existing ?? { mint, since: now, expiresAt, state: o.state ?? {}, timer, rooms: [] };
      entry.expiresAt = expiresAt;
      entry.timer = timer;
      entries.set(mint, entry);
      for (const room of o.rooms ?? []) if (!entry.rooms.includes(room) && d.join(room)) entry.rooms.push(room);
      return view<T>(entry);
    },
    tracked: <T>(mint: string) => {
      const e = entries.get(mint);
      return e === undefined ? undefined : view<T>(e);
    },
    end(mint, why) {
      const e = entries.get(mint);
      if (e === undefined) return;
      entries.delete(mint);
      clock.clearTimeout(e.timer);
      for (const room of e.rooms) d.leave(room);
      d.log.debug({ strategy: d.strategyId, mint, why, rooms: e.rooms.length }, 'tracking ended');
    },
    size: () => entries.size,
    stop() {
      for (const e of entries.values()) clock.clearTimeout(e.timer);
      entries.clear();
    },
  };
  return tracking;
}
