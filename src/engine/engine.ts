/**
 * The event engine: stream frames become domain events, dispatched in a defined order:
 *   1. market view and portfolio marks are updated;
 *   2. exit rules of open positions on that token run (stop loss, take profit, ...);
 *   3. strategies that own the room get their callback, in deployment order.
 * Each callback is isolated: an exception is counted and reported with strategy and event, and
 * the strategy is halted when it fails too often. Orders go through the risk gate to the executor.
 */
import { silentLogger, type Clock, type Logger, type Random } from '../core/index.js';
import { createDataLookup, type DataLookupOptions, type DataPort } from './data-lookup.js';
import type { DecisionSink } from './decision-log.js';
import type { DomainEvent } from './events.js';
import type { Executor, Fill, OrderIntent } from './execution-port.js';
import type { StreamFeed, StreamMessage } from './feed-port.js';
import { createExitManager } from './exit-manager.js';
import { createMarketView, type MarketView } from './market-view.js';
import { normaliseMessage } from './normalise.js';
import { createOrderFlow, type Admission, type OrderFlow } from './order-flow.js';
import { createPortfolio, type Portfolio } from './portfolio.js';
import { createRiskGate, type RiskGate, type RiskLimits } from './risk-gate.js';
import { createRoomRegistry } from './room-registry.js';
import type { StrategyInstance } from './strategy-instance.js';
import { createStrategyRunner, type StrategyRunner } from './strategy-runner.js';
import { createEngineStats, type EngineStats } from './engine-stats.js';

export interface ExecutionDefaults {
  readonly slippageBps: number;
  readonly priorityFeeLamports: bigint;
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
}

/** A fill of an earlier run and the strategy that owned it. */
export interface RestoredFill {
  readonly strategyId: string;
  readonly fill: Fill;
}

export interface Engine {
  /** Starts the executor (reconciliation first), then strategies, then joins their rooms. */
  start(): Promise<void>;
  /** Leaves every room, cancels timers and stops the executor. */
  stop(signal?: AbortSignal): Promise<void>;
  /** Kill switch: no new buys; exits and explicit sells still pass. */
  kill(reason: string): void;
  readonly portfolio: Portfolio;
  readonly market: MarketView;
  readonly risk: RiskGate;
  readonly stats: EngineStats;
  /** Feeds one message as if it came from the feed (replay, tests). */
  ingest(msg: StreamMessage): void;
  /** Rooms joined right now. */
  rooms(): string[];
}

export const DEFAULT_ERROR_POLICY: ErrorPolicy = { maxErrors: 10, windowMs: 60_000 };

/** Builds an engine; nothing happens until `start()`. */
export function createEngine(options: EngineOptions): Engine {
  const { clock, feed, executor } = options;
  const log = options.log ?? silentLogger();
  const market = createMarketView();
  const portfolio = restorePortfolio(options.startingCashLamports, options.restoredFills ?? []);
  const gate = createRiskGate(options.risk);
  const stats = createEngineStats(clock, portfolio);
  const order = options.strategies.map((s) => s.id);
  const rooms = createRoomRegistry(feed, order, (msg) => engine.ingest(msg));
  const rulesById = new Map(options.strategies.map((s) => [s.id, s.exits]));
  const data = createDataLookup(options.data, clock, options.dataLookup);
  const priceRoom = options.positionPriceRoom ?? 'price:token';
  const runners = new Map<string, StrategyRunner>();
  let unsubGap: (() => void) | undefined;
  let running = false;

  const exits = createExitManager(clock, (id) => rulesById.get(id), (o) => {
    orders.placeExit(o);
  });

  const orders: OrderFlow = createOrderFlow({
    clock, random: options.random, executor, gate, market, portfolio, exits, stats, log, execution: options.execution,
    decisions: options.decisions ?? (() => undefined),
    onIntent: options.onIntent,
    admission: options.admission,
    onPositionOpened: (p) => rooms.acquire(p.strategyId, `${priceRoom}:${p.mint}`),
    onPositionClosed: (p) => rooms.release(p.strategyId, `${priceRoom}:${p.mint}`),
    onFill: (strategyId, fill) => runners.get(strategyId)?.call('onFill', fill),
  });

  for (const s of options.strategies) {
    runners.set(s.id, createStrategyRunner({
      instance: s, clock, log, data, market, portfolio, rooms, stats, orders,
      errorPolicy: options.errorPolicy ?? DEFAULT_ERROR_POLICY,
    }));
  }

  const dispatch = (ev: DomainEvent, owners: readonly string[]): void => {
    stats.eventSeen();
    market.observe(ev);
    if (ev.type === 'price') {
      portfolio.mark(ev.mint, ev.price);
      const held = portfolio.openOn(ev.mint);
      if (held.length > 0) {
        for (const o of exits.onPrice(held, ev.price)) orders.placeExit(o);
        stats.markEquity();
      }
    } else if (ev.type === 'graduated') {
      portfolio.relocate(ev.mint, ev.market, ev.poolId);
    } else if (ev.type === 'safety') {
      const held = portfolio.openOn(ev.mint);
      if (held.length > 0) for (const o of exits.onSafety(held, ev.signal, ev.current)) orders.placeExit(o);
    }
    for (const id of owners) runners.get(id)?.event(ev);
  };

  const engine: Engine = {
    portfolio,
    market,
    risk: gate,
    stats,
    rooms: () => rooms.rooms(),
    kill(reason) {
      gate.kill(reason);
      log.warn({ reason }, 'kill switch on: new buys are denied');
    },
    ingest(msg) {
      stats.frameSeen();
      let events: DomainEvent[];
      try {
        events = normaliseMessage(msg);
      } catch (e) {
        stats.badFrame(msg.room, e);
        log.warn({ room: msg.room, err: e instanceof Error ? e.message : String(e) }, 'bad frame skipped');
        return;
      }
      const owners = rooms.owners(msg.room);
      for (const ev of events) dispatch(ev, owners);
    },
    async start() {
      if (running) return;
      await executor.start((r) => orders.onReport(r));
      // Restored positions get their price rooms and exit rules like fresh ones.
      for (const p of portfolio.open()) {
        rooms.acquire(p.strategyId, `${priceRoom}:${p.mint}`);
        exits.positionChanged(p);
      }
      running = true;
      stats.started();
      for (const r of runners.values()) r.start();
      unsubGap = feed.onGap((gap) => {
        const ev: DomainEvent = { type: 'gap', room: '', receivedAt: clock.now(), origin: 'live', startedAt: gap.startedAt, endedAt: gap.endedAt, rooms: gap.rooms };
        stats.eventSeen();
        for (const r of runners.values()) r.event(ev);
      });
    },
    async stop(signal) {
      if (!running) return;
      running = false;
      orders.close();
      unsubGap?.();
      for (const r of runners.values()) r.stop();
      rooms.releaseAll();
      exits.stop();
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
 */
function restorePortfolio(cashLamports: bigint, restored: readonly RestoredFill[]): Portfolio {
  if (restored.length === 0) return createPortfolio(cashLamports);
  const scratch = createPortfolio(0n);
  for (const r of restored) scratch.applyFill(r.strategyId, r.fill);
  const portfolio = createPortfolio(cashLamports - scratch.totals().cashLamports);
  for (const r of restored) portfolio.applyFill(r.strategyId, r.fill);
  return portfolio;
}
