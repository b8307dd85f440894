/**
 * The event engine: builds one run's parts on its clock and ports (market view, portfolio, risk
 * day and gate, exit manager, order flow, strategy runners, room owners) and wires them. Stream
 * frames become domain events dispatched in a defined order (engine-dispatch.ts): market view and
 * marks, then exit rules of open positions on that token, then the strategies that own the room, in
 * deployment order. Each callback is isolated: an exception is counted and reported with strategy
 * and event, and the strategy is halted when it fails too often. Orders go through the risk gate to
 * the executor (order-flow.ts).
 */
import { lamports, silentLogger, type Clock, type Lamports, type Logger, type Random, type UnixMs } from '../core/index.js';
import { createDataLookup, type DataLookupOptions, type DataPort } from './strategy/data-lookup.js';
import type { DecisionSink } from './logs/decision-log.js';
import type { DomainEvent } from './events/events.js';
import type { Executor, Fill, OrderIntent } from './orders/execution-port.js';
import type { StreamFeed, StreamMessage } from './events/feed-port.js';
import { createExitManager, type ExitLevels } from './exits/exit-manager.js';
import { createMarketView, type MarketView } from './market/market-view.js';
import { createMarketFlow } from './market/market-flow.js';
import { createMarketBars } from './market/market-bars.js';
import { createManualActions, type ManualAction, type ManualMeta } from './orders/manual-actions.js';
import { createOrderFlow, type Admission, type OrderFlow } from './orders/order-flow.js';
import { createPortfolio, type CarriedTotals, type Portfolio } from './market/portfolio.js';
import { createRiskGate, type RiskGate, type RiskLimits } from './orders/risk-gate.js';
import { createRoomOwners } from './room-owners.js';
import { createRiskDay, type RiskStateStore } from './orders/risk-day.js';
import { createPositionRoomKeeper } from './position-rooms.js';
import { fetchSolPrices } from './market/restore-prices.js';
import type { StrategyInstance } from './strategy/strategy-instance.js';
import type { OrderResult } from './strategy/strategy-api.js';
import { createStrategyRunner, type StrategyRunner } from './strategy/strategy-runner.js';
import { createEngineStats, type EngineStats } from './logs/engine-stats.js';
import { createDispatcher } from './engine-dispatch.js';
import { createStrategyHalts } from './strategy/strategy-halts.js';

export interface ExecutionDefaults {
  readonly slippageBps: number;
  readonly priorityFeeLamports: Lamports;
  /** Decimals assumed for a token the feed has not described (spec: not shown). */
  readonly defaultDecimals: number;
}

export interface ErrorPolicy {
  /** Halt a strategy after this many callback errors within `windowMs` (0 = never halt). */
  readonly maxErrors: number;
  readonly windowMs: number;
}

export interface EngineOptions {
  readonly feed: StreamFeed;
  readonly executor: Executor;
  readonly clock: Clock;
  readonly random: Random;
  readonly strategies: readonly StrategyInstance[];
  readonly risk: RiskLimits;
  readonly startingCashLamports: bigint;
  readonly execution: ExecutionDefaults;
  readonly decisions?: DecisionSink;
  readonly log?: Logger;
  readonly data?: DataPort;
  readonly dataLookup?: DataLookupOptions;
  readonly errorPolicy?: ErrorPolicy;
  /** Room family joined for tokens with open positions: `price:token` (default) or `price:aggregated`. */
  readonly positionPriceRoom?: 'price:token' | 'price:aggregated';
  /**
   * How long the market view keeps a token with no observation, in ms of the events' own time
   * (default 1 h, `engine.marketRetention`); held tokens are always kept.
   */
  readonly marketRetentionMs?: number;
  /** Called just before an intent is handed to the executor (benchmarks, tracing). */
  readonly onIntent?: (intent: OrderIntent) => void;
  /**
   * Fills of earlier runs (the live journal's landed intents, in landing order), replayed into the
   * portfolio at start so positions, cost basis and exit rules survive a restart. Cash stays
   * `startingCashLamports` (the wallet balance already reflects these trades).
   */
  readonly restoredFills?: readonly RestoredFill[];
  /** The runtime's admission check before the risk gate (paused entries, halted deployment). */
  readonly admission?: Admission;
  /** Fees of earlier runs' transactions that failed on chain: realised PnL includes every fee paid. */
  readonly restoredFailedFees?: readonly RestoredFailedFee[];
  /** What earlier runs' forgotten closed positions added to cash, realised PnL and fees (a paper book's retention). */
  readonly restoredCarry?: CarriedTotals;
  /** Prefix of intent ids (default `int_`); live runs add a random run prefix so ids never repeat across runs and processes. */
  readonly intentIdPrefix?: string;
  /** Where the risk day, daily-loss halt and kill switch persist (default: in memory). */
  readonly riskStore?: RiskStateStore;
  /** Risk-day boundary in milliseconds after UTC midnight (default 0: UTC midnight). */
  readonly dayBoundaryOffsetMs?: number;
}

/** A fee an earlier run paid for a transaction that failed on chain. */
export interface RestoredFailedFee {
  readonly strategyId: string;
  readonly mint: string;
  readonly feeLamports: Lamports;
}

/** A fill of an earlier run and the strategy that owned it. */
export interface RestoredFill {
  readonly strategyId: string;
  readonly fill: Fill;
  /** When the engine of the earlier run saw the fill, on its run clock (time stops measure from it); default `fill.filledAt`. */
  readonly seenAt?: UnixMs;
}

export interface Engine {
  /** Starts the executor (reconciliation first), then strategies, then joins their rooms. */
  start(): Promise<void>;
  /** Leaves every room, cancels timers and stops the executor. */
  stop(signal?: AbortSignal): Promise<void>;
  /**
   * Kill switch: no new buys; exits and explicit sells still pass. Persisted in the risk store
   * unless `persist` is false (a switch set in the deployment file).
   */
  kill(reason: string, options?: { readonly persist?: boolean }): void;
  /** Clears the persisted kill switch. */
  unkill(): void;
  readonly portfolio: Portfolio;
  readonly market: MarketView;
  readonly risk: RiskGate;
  readonly stats: EngineStats;
  /** Feeds one message as if it came from the feed (replay, tests). */
  ingest(msg: StreamMessage): void;
  /** Dispatches one domain event as if a frame on its room had brought it (the strategy test kit). */
  dispatch(event: DomainEvent): void;
  /** Rooms joined right now. */
  rooms(): string[];
  /**
   * The domain event being dispatched right now, undefined between events: an intent placed while
   * it is set was triggered by it (exit rules and synchronous strategy callbacks; not timers or
   * code after an `await`). The runtime measures event → intent latency with it.
   */
  dispatching(): DomainEvent | undefined;
  /** Strategies the error policy halted (they get no more events; their positions keep their exit rules). */
  haltedStrategies(): { readonly strategyId: string; readonly message: string }[];
  /** The exit levels of the open position with this key (take profits pending, stops, time stop); read-only. */
  exitLevels(key: string): ExitLevels | undefined;
  /**
   * An operator's action (close a position or a share, force an entry, cancel a waiting intent),
   * journaled as a `manual` decision with who and why, then through the order flow and risk gate.
   */
  manual(action: ManualAction, meta: ManualMeta): OrderResult;
  /** Calls `listener` when the error policy halts a strategy; returns the removal. */
  onStrategyHalted(listener: (strategyId: string, message: string) => void): () => void;
}

export const DEFAULT_ERROR_POLICY: ErrorPolicy = { maxErrors: 10, windowMs: 60_000 };

/** Builds an engine; nothing happens until `start()`. */
export function createEngine(options: EngineOptions): Engine {
  const { clock, feed, executor } = options;
  const log = options.log ?? silentLogger();
  // A token we hold, or have an intent in flight on, keeps its observation: exits and paper fills price from it.
  const market = createMarketView({
    ...(options.marketRetentionMs !== undefined ? { retentionMs: options.marketRetentionMs } : {}),
    isHeld: (mint) => portfolio.openOn(mint).length > 0 || orders.buyingNow(mint),
  });
  // The book keeps marks of open positions only; any other token's price is the market view's (same ticks).
  const portfolio = restorePortfolio(
    options.startingCashLamports,
    options.restoredFills ?? [],
    options.restoredFailedFees ?? [],
    (mint) => market.get(mint)?.price,
    options.restoredCarry,
  );
  const riskDay = createRiskDay({
    clock,
    log,
    equity: () => portfolio.equityLamports(),
    boundaryOffsetMs: options.dayBoundaryOffsetMs ?? 0,
    ...(options.riskStore ? { store: options.riskStore } : {}),
  });
  const gate = createRiskGate(options.risk, riskDay);
  const stats = createEngineStats(clock, portfolio);
  const order = options.strategies.map((s) => s.id);
  const rooms = createRoomOwners(feed, order, (msg) => dispatcher.ingest(msg));
  const rulesById = new Map(options.strategies.map((s) => [s.id, s.exits]));
  const positionRooms = createPositionRoomKeeper(rooms, options.positionPriceRoom ?? 'price:token', (id) => rulesById.get(id));
  const data = createDataLookup(options.data, clock, options.dataLookup);
  const flow = createMarketFlow();
  const bars = createMarketBars();
  const runners = new Map<string, StrategyRunner>();
  const halts = createStrategyHalts(log);
  let unsubGap: (() => void) | undefined;
  let running = false;

  const exits = createExitManager(
    clock,
    (id) => rulesById.get(id),
    (o) => {
      orders.placeExit(o);
    },
  );

  const orders: OrderFlow = createOrderFlow({
    clock,
    random: options.random,
    idPrefix: options.intentIdPrefix ?? 'int_',
    executor,
    gate,
    market,
    portfolio,
    exits,
    stats,
    log,
    execution: options.execution,
    decisions: options.decisions ?? (() => undefined),
    onIntent: options.onIntent,
    admission: options.admission,
    restoredSignatures: (options.restoredFills ?? []).flatMap((r) => (r.fill.signature === undefined ? [] : [r.fill.signature])),
    onPositionOpened: (p) => positionRooms.opened(p),
    onPositionClosed: (p) => {
      positionRooms.closed(p);
      runners.get(p.strategyId)?.positionClosed(p.mint);
    },
    onFill: (strategyId, fill) => runners.get(strategyId)?.call('onFill', fill),
    onIntentFailed: (strategyId, event) => runners.get(strategyId)?.call('onIntentFailed', event),
    watchPriceFor: (strategyId, mint) => positionRooms.watchPrice(strategyId, mint),
  });
  const manual = createManualActions({
    clock,
    orders,
    portfolio,
    strategyIds: order,
    executor,
    decisions: options.decisions ?? (() => undefined),
  });

  for (const s of options.strategies) {
    runners.set(
      s.id,
      createStrategyRunner({
        instance: s,
        clock,
        log,
        data,
        market,
        flow,
        bars,
        portfolio,
        rooms,
        stats,
        orders,
        gate,
        errorPolicy: options.errorPolicy ?? DEFAULT_ERROR_POLICY,
        onHalted: (strategyId, message) => halts.halted(strategyId, message),
      }),
    );
  }

  const dispatcher = createDispatcher({ clock, log, market, flow, bars, portfolio, exits, orders, stats, rooms, runners });

  const engine: Engine = {
    portfolio,
    market,
    risk: gate,
    stats,
    rooms: () => rooms.rooms(),
    dispatching: dispatcher.current,
    manual: (a, meta) => manual(a, meta),
    exitLevels: (key) => exits.levels(key),
    haltedStrategies: () => halts.list(),
    onStrategyHalted: (listener) => halts.listen(listener),
    kill(reason, o) {
      riskDay.kill(reason, o);
      log.warn({ reason }, 'kill switch on: new buys are denied');
    },
    unkill() {
      riskDay.unkill();
      log.warn(
        riskDay.killReason === undefined ? {} : { reason: riskDay.killReason },
        riskDay.killReason === undefined
          ? 'kill switch off: buys are allowed again'
          : 'kill switch cleared in the store, but the deployment file still sets it',
      );
    },
    ingest: dispatcher.ingest,
    dispatch: dispatcher.event,
    async start() {
      if (running) return;
      await executor.start((r) => orders.onReport(r));
      // Restored positions are whole before any event: priced from REST, then their price and
      // safety rooms and exit rules like fresh ones (a price at or past an exit level fires it).
      const restored = portfolio.open();
      const prices =
        restored.length > 0 && options.data ? await fetchSolPrices(options.data, [...new Set(restored.map((p) => p.mint))], log) : new Map<string, string>();
      for (const [mint, price] of prices) portfolio.mark(mint, price);
      for (const p of restored) {
        positionRooms.opened(p);
        exits.positionChanged(p);
      }
      for (const [mint, price] of prices) for (const o of exits.onPrice(portfolio.openOn(mint), price)) orders.placeExit(o);
      riskDay.start();
      running = true;
      stats.started();
      for (const r of runners.values()) r.start();
      unsubGap = feed.onGap(dispatcher.gap);
    },
    async stop(signal) {
      if (!running) return;
      running = false;
      orders.close();
      unsubGap?.();
      for (const r of runners.values()) r.stop();
      rooms.releaseAll();
      exits.stop();
      riskDay.stop();
      await executor.stop(signal);
      stats.markEquity(true);
    },
  };
  return engine;
}

/**
 * A portfolio holding the positions of `restored` fills with cash equal to `cashLamports`: the
 * fills' cash impact is measured on a scratch portfolio first, then added back to the start, so
 * the replay reproduces cost basis and realised PnL exactly without counting the cash twice.
 * `carried`: the sums of positions the book no longer holds (a paper book's retention), in
 * `cashLamports` already and added to realised PnL and fees.
 */
export function restorePortfolio(
  cashLamports: bigint,
  restored: readonly RestoredFill[],
  fees: readonly RestoredFailedFee[],
  priceOf: (mint: string) => string | undefined,
  carried?: CarriedTotals,
): Portfolio {
  if (restored.length === 0 && fees.length === 0 && carried === undefined) return createPortfolio(cashLamports, priceOf);
  const replay = (p: Portfolio): Portfolio => {
    for (const r of restored) p.applyFill(r.strategyId, r.fill, r.seenAt);
    for (const f of fees) p.applyFailedFee(f.strategyId, f.mint, lamports(f.feeLamports));
    return p;
  };
  const scratch = replay(createPortfolio(0n));
  // the carried cash is in `cashLamports` already, but not in the starting cash the totals report
  const start = cashLamports - scratch.totals().cashLamports - (carried?.cashLamports ?? 0n);
  return replay(createPortfolio(start, priceOf, carried));
}
