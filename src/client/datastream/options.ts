/**
 * Options of the Datastream client: knobs validated once with zod (unknown keys rejected),
 * defaults resolved here, the result frozen.
 */
import { z } from 'zod';
import { ChainpilotError, systemClock, seededRandom, type Clock, type Random, type UnixMs } from '../../core/index.js';
import type { BackfillSource } from './backfill/backfill-source.js';
import { WIRE_LIMITS } from '../wire-limits.js';

/** Numeric and policy knobs (all optional; defaults in `DATASTREAM_DEFAULTS`). */
export const datastreamKnobs = z
  .object({
    connectTimeoutMs: z.number().int().positive(),
    livenessTimeoutMs: z.number().int().positive(),
    backoffBaseMs: z.number().int().positive(),
    backoffCapMs: z.number().int().positive(),
    stableAfterMs: z.number().int().nonnegative(),
    authFailureLimit: z.number().int().positive(),
    maxQueue: z.number().int().positive(),
    overflow: z.enum(['drop-oldest', 'drop-newest']),
    dedupCapacity: z.number().int().positive(),
    backfillOverlapMs: z.number().int().nonnegative(),
    backfillPageLimit: z.number().int().min(1).max(500),
    backfillMaxPages: z.number().int().positive(),
    backfillRetries: z.number().int().nonnegative(),
    /** Largest frame the socket accepts; a larger one closes the connection (code 1009) and is counted. */
    maxFrameBytes: z
      .number()
      .int()
      .min(1_024)
      .max(256 * 1024 * 1024),
    /** Deepest nesting of objects and arrays in a frame (the frame object is level 1); deeper frames are counted and skipped. */
    maxFrameDepth: z.number().int().min(8).max(1_000),
    /**
     * Real milliseconds after a room join or leave is written before the next one is (the changes
     * meanwhile go in one write; a room left and joined again within it writes nothing). 0: each
     * turn's changes are written after that turn. Remote deployments use
     * DATASTREAM_REMOTE_ROOM_WRITE_WINDOW_MS; a lockstep simulator wants 0 (it waits for the joins).
     */
    roomWriteWindowMs: z.number().int().min(0).max(1_000),
  })
  .strict()
  .partial();

export type DatastreamKnobs = z.infer<typeof datastreamKnobs>;

export const DATASTREAM_DEFAULTS = Object.freeze({
  connectTimeoutMs: 10_000,
  livenessTimeoutMs: 60_000,
  backoffBaseMs: 500,
  backoffCapMs: 30_000,
  stableAfterMs: 10_000,
  authFailureLimit: 3,
  maxQueue: 10_000,
  overflow: 'drop-oldest',
  dedupCapacity: 100_000,
  backfillOverlapMs: 30_000,
  backfillPageLimit: 500,
  backfillMaxPages: 200,
  backfillRetries: 3,
  maxFrameBytes: WIRE_LIMITS.maxFrameBytes,
  maxFrameDepth: WIRE_LIMITS.maxJsonDepth,
  roomWriteWindowMs: 0,
});

/**
 * The room write window of a deployment on the remote service: a price room joined for a buy waits
 * at most this long behind an earlier room write, and a feed that joins and leaves a room per launch
 * writes 100 room frames a second at most instead of two per launch (bench/frame-intent).
 */
export const DATASTREAM_REMOTE_ROOM_WRITE_WINDOW_MS = 10;

export interface DatastreamClientOptions extends DatastreamKnobs {
  /** Endpoint without the key, e.g. `wss://datastream.example` (the key is appended as the last path segment). */
  readonly url: string;
  /** The Datastream API key. Never logged, never put in an error. */
  readonly apiKey: string;
  readonly clock?: Clock;
  /** Seeded source for backoff jitter. */
  readonly random?: Random;
  /** REST history used to backfill gaps and confirm liquidity (the runtime adapts the data-api client). */
  readonly backfill?: BackfillSource;
  /**
   * Called with every frame's text as received and its receive time, before parsing (recording).
   * Must be fast and must not throw (a throw is counted as a handler error).
   */
  readonly onRawFrame?: (text: string, receivedAt: UnixMs) => void;
  /**
   * Real milliseconds one event-loop turn may spend handing a socket read's frames to subscribers
   * (default: no limit, a read is handled in full). Beyond it the rest of the read waits, in order,
   * for the next turns, so I/O and timers are served between: for a connection shared by many
   * consumers (the daemon's shared feeds), where one frame costs one handler call per consumer. A
   * waiting frame counts in `framesReceived` only once handled; its `receivedAt` is its read's.
   * At most 8,192 frames wait: beyond, a read is handled in full.
   */
  readonly sliceMs?: number;
  /**
   * With `sliceMs`: whether one frame's delivery may also pause between two of its subscribers,
   * asked when the slice is spent inside a frame (delivery/delivery-queue.ts; default: never, a
   * frame goes to every subscriber in one turn). The rest of the frame's deliveries go first in the
   * next turn, before any later frame; the frame counts in `framesReceived` once they are made.
   */
  readonly deliveriesMayPause?: () => boolean;
}

export type ResolvedOptions = Readonly<Required<DatastreamKnobs>> & {
  readonly url: string;
  readonly apiKey: string;
  readonly clock: Clock;
  readonly random: Random;
  readonly backfill?: BackfillSource;
  readonly onRawFrame?: (text: string, receivedAt: UnixMs) => void;
  readonly sliceMs?: number;
  readonly deliveriesMayPause?: () => boolean;
};

/** Validates options once; throws STREAM_INVALID_OPTIONS naming the field. */
export function resolveOptions(o: DatastreamClientOptions): ResolvedOptions {
  const { url, apiKey, clock, random, backfill, onRawFrame, sliceMs, deliveriesMayPause, ...knobs } = o;
  const parsed = datastreamKnobs.safeParse(knobs);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || '(options)';
    throw new ChainpilotError('STREAM_INVALID_OPTIONS', `${field}: ${issue?.message ?? 'invalid'}; fix the Datastream client options`, {
      retry: 'not_retryable',
      context: { field },
    });
  }
  if (!/^wss?:\/\/[^/\s]+/.test(url)) {
    throw new ChainpilotError('STREAM_INVALID_OPTIONS', 'url: must start with ws:// or wss:// and name a host (without the key)', {
      retry: 'not_retryable',
      context: { field: 'url' },
    });
  }
  if (apiKey.length === 0 || /[\s/]/.test(apiKey)) {
    throw new ChainpilotError('STREAM_INVALID_OPTIONS', 'apiKey: must be non-empty without spaces or "/"', {
      retry: 'not_retryable',
      context: { field: 'apiKey' },
    });
  }
  if (sliceMs !== undefined && !(Number.isFinite(sliceMs) && sliceMs >= 0)) {
    throw new ChainpilotError(
      'STREAM_INVALID_OPTIONS',
      `sliceMs: must be a finite number of milliseconds >= 0 (got ${String(sliceMs)}); leave it out to hand every read over in full`,
      {
        retry: 'not_retryable',
        context: { field: 'sliceMs' },
      },
    );
  }
  const resolved = { ...DATASTREAM_DEFAULTS, ...parsed.data };
  if (resolved.backoffCapMs < resolved.backoffBaseMs) {
    throw new ChainpilotError('STREAM_INVALID_OPTIONS', 'backoffCapMs: must be >= backoffBaseMs', {
      retry: 'not_retryable',
      context: { field: 'backoffCapMs' },
    });
  }
  return Object.freeze({
    ...resolved,
    url,
    apiKey,
    clock: clock ?? systemClock(),
    random: random ?? seededRandom('datastream'),
    ...(backfill ? { backfill } : {}),
    ...(onRawFrame ? { onRawFrame } : {}),
    ...(sliceMs !== undefined ? { sliceMs } : {}),
    ...(deliveriesMayPause ? { deliveriesMayPause } : {}),
  });
}
