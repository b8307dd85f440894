/**
 * A confirmed-only view of liquidity rooms. Live liquidity events are provisional (processed
 * commitment; they may vanish on a fork and no rollback message is sent), so this view holds each
 * live event until REST history (confirmed or finalized) shows it, then delivers it with
 * `commitment: 'confirmed'`; an event REST has not shown after `holdMs` is dropped, counted and
 * reported. Backfilled events are already confirmed and pass straight through.
 */
import { ChainpilotError, describeError, type Clock, type TimerHandle, type UnixMs } from '../../core/index.js';
import type { BackfillSource } from './backfill/backfill-source.js';
import type { DatastreamClient } from './datastream-client.js';
import type { Handler } from './delivery/subscriber.js';
import { rowFingerprints } from './dedup/event-key.js';
import type { LiquidityEvent } from './rooms/payloads.js';
import { roomSpec, type BackfillScope } from './rooms/room-spec.js';
import { resolveRoom } from './rooms/room-registry.js';
import type { Room } from './rooms/rooms.js';
import type { DatastreamMessage } from './stream-message.js';

export interface ConfirmedViewOptions {
  readonly client: Pick<DatastreamClient, 'subscribe'>;
  readonly source: BackfillSource;
  readonly clock: Clock;
  /** How long a live event may wait for REST confirmation before it is dropped (default 120 s). */
  readonly holdMs?: number;
  /** How often pending events are checked against REST (default 5 s). */
  readonly pollMs?: number;
  /** Rows per REST page (default 200) and pages per check (default 5), newest first. */
  readonly pageLimit?: number;
  readonly maxPages?: number;
  /** Events held per room at most; the oldest is dropped (counted) beyond it (default 10,000). */
  readonly maxPending?: number;
  /** Called for events dropped unconfirmed and for REST failures. */
  readonly onDrop?: (room: string, events: readonly LiquidityEvent[], reason: 'unconfirmed' | 'overflow') => void;
  readonly onError?: (room: string, error: ChainpilotError) => void;
}

export interface ConfirmedViewStats {
  confirmed: number;
  passedThrough: number;
  dropped: number;
  pending: number;
  checks: number;
  checkFailures: number;
}

export interface ConfirmedLiquidityView {
  /** Subscribes `handler` to confirmed events of a token-scoped liquidity room. Returns the unsubscribe. */
  subscribe(room: Room<'liquidity'> | string, handler: Handler<DatastreamMessage<'liquidity'>>): () => void;
  stats(): ConfirmedViewStats;
  /** Runs one check of every room now (also runs every `pollMs`). */
  check(signal?: AbortSignal): Promise<void>;
  close(): void;
}

interface Held {
  readonly event: LiquidityEvent;
  readonly since: UnixMs;
  readonly key: string;
}

interface ViewRoom {
  readonly room: string;
  readonly scope: BackfillScope;
  readonly handler: Handler<DatastreamMessage<'liquidity'>>;
  readonly held: Held[];
  readonly unsubscribe: () => void;
}

const LIQUIDITY_ROOM = resolveRoom('liquidity:fingerprint');
const fingerprintOf = (e: LiquidityEvent): string => {
  const f = rowFingerprints(LIQUIDITY_ROOM, [e]);
  return `${f.keys[0]!}/${f.checks[0]!}`;
};

export function createConfirmedLiquidityView(o: ConfirmedViewOptions): ConfirmedLiquidityView {
  const holdMs = o.holdMs ?? 120_000;
  const pollMs = o.pollMs ?? 5_000;
  const pageLimit = o.pageLimit ?? 200;
  const maxPages = o.maxPages ?? 5;
  const maxPending = o.maxPending ?? 10_000;
  const views = new Set<ViewRoom>();
  const st: ConfirmedViewStats = { confirmed: 0, passedThrough: 0, dropped: 0, pending: 0, checks: 0, checkFailures: 0 };
  let timer: TimerHandle | undefined;
  let running: Promise<void> | undefined;
  let closed = false;

  const deliver = (v: ViewRoom, events: readonly LiquidityEvent[], origin: 'live' | 'backfill'): void => {
    void Promise.resolve()
      .then(() => v.handler({ room: v.room, family: 'liquidity', data: events, receivedAt: o.clock.now(), origin, commitment: 'confirmed' }))
      .catch((e: unknown) =>
        o.onError?.(
          v.room,
          new ChainpilotError('STREAM_HANDLER_FAILED', `confirmed view handler of ${v.room} threw: ${describeError(e)}`, {
            retry: 'not_retryable',
            context: { room: v.room },
          }),
        ),
      );
  };

  const checkRoom = async (v: ViewRoom, signal?: AbortSignal): Promise<void> => {
    if (v.held.length === 0) return;
    const oldest = v.held[0]!.since;
    const found = new Map<string, number>();
    let cursor: string | number | undefined;
    for (let page = 0; page < maxPages; page++) {
      const p = await o.source.fetchHistoryPage(
        {
          token: v.scope.token,
          ...(v.scope.pool === undefined ? {} : { pool: v.scope.pool }),
          ...(v.scope.wallet === undefined ? {} : { wallet: v.scope.wallet }),
          events: 'liquidity',
          sortDirection: 'desc',
          limit: pageLimit,
          ...(cursor === undefined ? {} : { cursor }),
        },
        signal,
      );
      let older = false;
      for (const r of p.rows) {
        const row = r as LiquidityEvent;
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks REST rows at runtime
        if (typeof row !== 'object' || row === null || !Array.isArray(row.tokens)) continue;
        const k = fingerprintOf(row);
        found.set(k, (found.get(k) ?? 0) + 1);
        if (typeof row.time === 'number' && row.time < oldest - holdMs) older = true;
      }
      if (older || !p.hasNextPage || p.nextCursor === undefined) break;
      cursor = p.nextCursor;
    }
    const now = o.clock.now();
    const confirmed: LiquidityEvent[] = [];
    const expired: LiquidityEvent[] = [];
    const keep: Held[] = [];
    for (const h of v.held) {
      const n = found.get(h.key) ?? 0;
      if (n > 0) {
        found.set(h.key, n - 1);
        confirmed.push(h.event);
      } else if (now - h.since >= holdMs) expired.push(h.event);
      else keep.push(h);
    }
    v.held.splice(0, v.held.length, ...keep);
    st.pending -= confirmed.length + expired.length;
    st.confirmed += confirmed.length;
    st.dropped += expired.length;
    if (confirmed.length > 0) deliver(v, confirmed, 'live');
    if (expired.length > 0) o.onDrop?.(v.room, expired, 'unconfirmed');
  };

  const checkAll = async (signal?: AbortSignal): Promise<void> => {
    st.checks++;
    for (const v of views) {
      try {
        await checkRoom(v, signal);
      } catch (e) {
        st.checkFailures++;
        o.onError?.(
          v.room,
          new ChainpilotError(
            'STREAM_CONFIRM_FAILED',
            `confirming liquidity of ${v.room} against REST failed: ${describeError(e)}; events stay held until the next check or holdMs`,
            { retry: 'retryable', context: { room: v.room }, cause: e },
          ),
        );
      }
    }
  };

  const schedule = (): void => {
    if (closed || timer) return;
    timer = o.clock.setTimeout(() => {
      timer = undefined;
      running ??= checkAll().finally(() => {
        running = undefined;
        schedule();
      });
    }, pollMs);
  };

  return {
    subscribe(room, handler) {
      const spec = roomSpec(room);
      if (spec.family !== 'liquidity' || !spec.backfill) {
        throw new ChainpilotError(
          'STREAM_INVALID_ROOM',
          `room ${room}: the confirmed view needs a token-scoped liquidity room (rooms.liquidity(mint, ...)); pool and wallet rooms have no REST history to confirm against`,
          {
            retry: 'not_retryable',
            context: { room },
          },
        );
      }
      const held: Held[] = [];
      const onMessage = (m: DatastreamMessage): void => {
        const events = m.data as readonly LiquidityEvent[];
        if (m.origin === 'backfill') {
          st.passedThrough += events.length;
          deliver(v, events, 'backfill');
          return;
        }
        for (const event of events) held.push({ event, since: m.receivedAt, key: fingerprintOf(event) });
        st.pending += events.length;
        if (held.length > maxPending) {
          const over = held.splice(0, held.length - maxPending).map((h) => h.event);
          st.pending -= over.length;
          st.dropped += over.length;
          o.onDrop?.(room, over, 'overflow');
        }
      };
      const v: ViewRoom = { room, scope: spec.backfill, handler, held, unsubscribe: o.client.subscribe(room, onMessage) };
      views.add(v);
      schedule();
      return () => {
        if (!views.delete(v)) return;
        st.pending -= v.held.length;
        v.held.length = 0;
        v.unsubscribe();
      };
    },
    stats: () => ({ ...st }),
    check: (signal) => checkAll(signal),
    close() {
      closed = true;
      if (timer) o.clock.clearTimeout(timer);
      timer = undefined;
      for (const v of views) v.unsubscribe();
      views.clear();
      st.pending = 0;
    },
  };
}
