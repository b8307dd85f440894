/**
 * Runs one strategy: builds its context, routes events to its handlers, isolates its errors
 * (sync throws and async rejections) and halts it or quarantines a token by policy
 * (strategy-errors.ts). Timers run on the engine clock.
 */
import { ChainpilotError, checkRoomName, type Clock, type Logger, type TimerHandle } from '../../core/index.js';
import type { EngineStats } from '../logs/engine-stats.js';
import type { DomainEvent } from '../events/events.js';
import type { MarketBars } from '../market/market-bars.js';
import type { MarketFlow } from '../market/market-flow.js';
import type { MarketView } from '../market/market-view.js';
import type { OrderFlow } from '../orders/order-flow.js';
import type { RiskGate } from '../orders/risk-gate.js';
import { readAccount } from './account-view.js';
import { createStrategyErrors } from './strategy-errors.js';
import { createTracking } from './strategy-tracking.js';
import type { Portfolio } from '../market/portfolio.js';
import type { RoomOwners } from '../room-owners.js';
import type { StrategyContext, StrategyData, StrategyDefinition } from './strategy-api.js';
import type { StrategyInstance } from './strategy-instance.js';

const MAX_TIMERS = 10_000;
const MAX_WATCHED = 1_000;

type HandlerName = Exclude<Extract<keyof StrategyDefinition, `on${string}`>, 'onStart'>;

const HANDLER: Record<DomainEvent['type'], HandlerName> = {
  launch: 'onLaunch',
  curve: 'onCurve',
  graduating: 'onGraduating',
  graduated: 'onGraduated',
  price: 'onPrice',
  safety: 'onSafety',
  liquidity: 'onLiquidity',
  trade: 'onTrade',
  stats: 'onStats',
  volume: 'onStats',
  walletPnl: 'onWalletPnl',
  dca: 'onDca',
  prediction: 'onPrediction',
  crypto: 'onCrypto',
  gap: 'onGap',
};

export interface StrategyRunner {
  readonly id: string;
  readonly halted: boolean;
  start(): void;
  event(ev: DomainEvent): void;
  call(handler: HandlerName, arg: unknown): void;
  /** This strategy's position in `mint` closed: leave the rooms it watched that name the token. */
  positionClosed(mint: string): void;
  stop(): void;
}

export interface StrategyRunnerDeps {
  readonly instance: StrategyInstance;
  readonly clock: Clock;
  readonly log: Logger;
  readonly data: StrategyData;
  readonly market: MarketView;
  readonly flow: MarketFlow;
  readonly bars: MarketBars;
  readonly portfolio: Portfolio;
  readonly rooms: RoomOwners;
  readonly stats: EngineStats;
  readonly orders: OrderFlow;
  /** The risk gate (its limits and day, for `ctx.account()`). */
  readonly gate: RiskGate;
  readonly errorPolicy: { readonly maxErrors: number; readonly windowMs: number };
  /** Called once when the error policy halts the strategy (the runtime shows the deployment as degraded). */
  readonly onHalted?: (strategyId: string, message: string) => void;
}

/** The token an event, fill or failed intent is about, if any. */
function mintOf(arg: unknown): string | undefined {
  const m = typeof arg === 'object' && arg !== null ? (arg as { mint?: unknown }).mint : undefined;
  return typeof m === 'string' ? m : undefined;
}

export function createStrategyRunner(d: StrategyRunnerDeps): StrategyRunner {
  const { instance, clock } = d;
  const def = instance.definition;
  const id = instance.id;
  const log = d.log.child({ strategy: id });
  const timers = new Map<number, TimerHandle>();
  /** Watched rooms and their expiry timer, if any. */
  const watched = new Map<string, TimerHandle | undefined>();
  const declared = def.rooms?.(instance.params) ?? [];
  const errors = createStrategyErrors({ strategyId: id, clock, log, stats: d.stats, policy: d.errorPolicy, ...(d.onHalted ? { onHalted: d.onHalted } : {}) });
  const fail = (where: string, e: unknown, mint?: string): void => errors.fail(where, e, mint);
  let nextTimer = 1;

  const ctx: StrategyContext = {
    strategyId: id,
    params: instance.params,
    state: def.initialState?.(instance.params) ?? {},
    clock: { now: () => clock.now() },
    log: {
      debug: (msg, fields) => log.debug(fields ?? {}, msg),
      info: (msg, fields) => log.info(fields ?? {}, msg),
      warn: (msg, fields) => log.warn(fields ?? {}, msg),
    },
    data: d.data,
    market: (mint) => d.market.get(mint),
    flow: (mint, windowMs) => d.flow.flow(mint, windowMs, clock.now()),
    bars: (mint, interval) => d.bars.series(mint, interval, clock.now()),
    account: (mint) => readAccount(d.gate, d.orders.riskState, id, clock.now(), mint),
    buy: (o) =>
      d.orders.place({
        strategyId: id,
        side: 'buy',
        mint: o.mint,
        spendLamports: o.lamports,
        reason: o.reason,
        slippageBps: o.slippageBps,
        allowConcurrent: o.allowConcurrent,
      }),
    sell: (o) =>
      o.amountRaw !== undefined
        ? d.orders.place({ strategyId: id, side: 'sell', mint: o.mint, sellRaw: o.amountRaw, reason: o.reason, slippageBps: o.slippageBps })
        : d.orders.sellFraction(id, o.mint, o.fractionBps ?? 10_000, o.reason, o.slippageBps),
    position: (mint) => d.portfolio.position(id, mint),
    positions: () => d.portfolio.open().filter((p) => p.strategyId === id),
    pending: (mint) => d.orders.pendingOf(id, mint),
    schedule(delayMs, name, payload) {
      if (timers.size >= MAX_TIMERS) {
        throw new ChainpilotError('STRATEGY_TOO_MANY_TIMERS', `strategy ${id} has ${MAX_TIMERS} timers pending; cancel some before scheduling more`, {
          retry: 'not_retryable',
          context: { strategyId: id },
        });
      }
      const timerId = nextTimer++;
      timers.set(
        timerId,
        clock.setTimeout(() => {
          timers.delete(timerId);
          runner.call('onTimer', { name, payload, at: clock.now() });
        }, delayMs),
      );
      return timerId;
    },
    cancel(timerId) {
      const h = timers.get(timerId);
      if (h) clock.clearTimeout(h);
      timers.delete(timerId);
    },
    watch(room, options) {
      checkRoomName(room); // 'price:token:' (a mint left out) is refused here, echoed, in the handler that asked
      if (watched.has(room)) return;
      if (watched.size >= MAX_WATCHED) {
        throw new ChainpilotError('STRATEGY_TOO_MANY_ROOMS', `strategy ${id} watches ${MAX_WATCHED} rooms; unwatch some first, or watch with { ttlMs }`, {
          retry: 'not_retryable',
          context: { strategyId: id },
        });
      }
      const ttl = options?.ttlMs;
      watched.set(room, ttl === undefined ? undefined : clock.setTimeout(() => ctx.unwatch(room), Math.max(1, ttl)));
      d.rooms.acquire(id, room);
    },
    unwatch(room) {
      if (!watched.has(room)) return;
      const t = watched.get(room);
      if (t !== undefined) clock.clearTimeout(t);
      watched.delete(room);
      d.rooms.release(id, room);
    },
    track: (mint, o) => tracking.track(mint, o),
    tracked: (mint) => tracking.tracked(mint),
    untrack: (mint) => tracking.end(mint, 'untracked'),
  };
  const tracking = createTracking({
    strategyId: id,
    clock,
    log,
    join(room) {
      if (watched.has(room)) return false;
      ctx.watch(room);
      return true;
    },
    leave: (room) => ctx.unwatch(room),
  });

  const invoke = (where: string, fn: () => void | Promise<void>): void => {
    try {
      const r = fn();
      if (r instanceof Promise) r.then(undefined, (e: unknown) => fail(where, e));
    } catch (e) {
      fail(where, e);
    }
  };

  const runner: StrategyRunner = {
    id,
    get halted() {
      return errors.halted;
    },
    start() {
      if (def.onStart) invoke('onStart', () => def.onStart?.(ctx));
      for (const room of declared)
        invoke('rooms', () => {
          checkRoomName(room);
          d.rooms.acquire(id, room);
        });
    },
    event(ev) {
      runner.call(HANDLER[ev.type], ev);
    },
    call(handler, arg) {
      const mint = !errors.halted && errors.tracksTokens ? mintOf(arg) : undefined;
      const fn =
        errors.halted || !errors.delivers(mint)
          ? undefined
          : // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with fn.call(def, ...)
            (def[handler] as ((e: unknown, c: StrategyContext) => void | Promise<void>) | undefined);
      // as invoke(), without a closure per event
      if (fn) {
        try {
          const r = fn.call(def, arg, ctx);
          if (r instanceof Promise) r.then(undefined, (e: unknown) => fail(handler, e, mint));
        } catch (e) {
          fail(handler, e, mint);
        }
      }
      // a fill or a failure of an intent on a tracked token ends its tracking, once the handler had it
      if (handler === 'onFill' || handler === 'onIntentFailed')
        tracking.end((arg as { readonly mint: string }).mint, handler === 'onFill' ? 'fill' : 'failure');
    },
    positionClosed(mint) {
      // runs on every close, over up to MAX_WATCHED rooms: only a room containing the mint's text is split
      let rooms: string[] | undefined;
      for (const room of watched.keys()) if (room.includes(mint) && room.split(':').includes(mint)) (rooms ??= []).push(room);
      if (rooms !== undefined) for (const room of rooms) ctx.unwatch(room);
    },
    stop() {
      tracking.stop();
      for (const h of timers.values()) clock.clearTimeout(h);
      timers.clear();
      for (const t of watched.values()) if (t !== undefined) clock.clearTimeout(t);
      watched.clear();
    },
  };
  return runner;
}
