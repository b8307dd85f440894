/**
 * A strategy under test: the real engine (risk gate, exit rules, order flow) and the real paper
 * executor on a manual clock, fed domain events by the test. Nothing here opens a socket, a file or
 * a database, and nothing loads the Solana SDK: `chainpilot/testing` stays as light as the strategy API.
 */
import { manualClock, type ManualClock } from '../core/clock.js';
import { parseSolToLamports } from '../core/decimal.js';
import { ChainpilotError } from '../core/errors.js';
import { seededRandom } from '../core/random.js';
import { bps, lamports, type UnixMs } from '../core/units.js';
import { createEngine, type Engine } from '../engine/engine.js';
import type { DomainEvent } from '../engine/events/events.js';
import type { StreamFeed } from '../engine/events/feed-port.js';
import type { DecisionEntry } from '../engine/logs/decision-log.js';
import type { Position, PortfolioTotals } from '../engine/market/portfolio.js';
import type { BuyIntent, ExecutionSink, Fill, OrderIntent, SellIntent } from '../engine/orders/execution-port.js';
import type { RiskLimits } from '../engine/orders/risk-gate.js';
import type { StrategyDefinition } from '../engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../engine/strategy/strategy-instance.js';
import type { ExitRules } from '../engine/exits/exit-rules.js';
import { createPaperExecutor } from '../executors/paper/paper-executor.js';
import { eventBuilders, type EventBuilders } from './events.js';
import { describeAll, matches, type DeniedEntry, type FillMatch, type IntentMatch } from './matchers.js';

/** A deployment's defaults where the options say nothing (src/config/schema.ts: `paper`, `execution`). */
export interface StrategyTestOptions {
  /** The strategy's parameters as a deployment file gives them (`"10m"`, `"0.1"`), checked by its schema. */
  readonly params?: unknown;
  /** The deployment's `exits` for this strategy (override the definition's, key by key). */
  readonly exits?: ExitRules;
  /** Start time of the manual clock, Unix ms (default 2026-01-01T00:00:00Z). */
  readonly startAt?: number;
  /** Paper cash at start, exact SOL (default "10"). */
  readonly cashSol?: string;
  /** Risk limits (default: none, as a deployment without a `risk` block). */
  readonly risk?: RiskLimits;
  /** Decision-to-fill latency of the paper executor, ms on the manual clock (default 250). */
  readonly latencyMs?: number;
  /** Slippage allowed on each intent, bps (default 300). */
  readonly slippageBps?: number;
  /** Seed of the run's random source (intent ids; default 1). */
  readonly seed?: number;
}

/** A strategy running on the real engine and paper executor, driven by the test. */
export interface StrategyTest {
  /** Builders of the events the strategy sees, stamped with the manual clock's time. */
  readonly events: EventBuilders;
  /** The manual clock: time moves only when the test says so. */
  readonly clock: ManualClock;
  /** Now on the manual clock. */
  now(): UnixMs;
  /** Moves the clock by `ms`, firing what falls due in order: `ctx.schedule` timers, paper fills, time stops. */
  advance(ms: number): void;
  /**
   * Dispatches events as the feed would: market view, exit rules, then the strategy when it watches
   * the event's room (its `rooms()` or `ctx.watch`). A `gap` reaches it always.
   */
  send(...events: readonly DomainEvent[]): void;
  /**
   * Lets async handlers finish what they awaited (one turn of the event loop: their promise
   * chains, with no I/O in the kit, resolve in it); no time passes on the clock.
   */
  settle(): Promise<void>;
  /** Rooms joined right now (the strategy's and those of open positions). */
  rooms(): string[];
  /**
   * Events sent on a room nobody had joined: they reached no strategy (the market view and exit
   * rules still saw them). A test whose strategy "does nothing" looks here first.
   */
  unwatched(): readonly DomainEvent[];
  /** Intents the strategy and its exit rules placed, in order. */
  intents(): readonly OrderIntent[];
  /** Paper fills, in order. */
  fills(): readonly Fill[];
  /** Orders the risk gate (or the order flow) denied, in order. */
  denials(): readonly DeniedEntry[];
  /** The decision log: intents, denials, fills and unfilled outcomes, in order (as `decisions.jsonl` has them). */
  decisions(): readonly DecisionEntry[];
  /** Open positions. */
  positions(): Position[];
  /** Cash, equity, PnL and open positions of the paper book. */
  totals(): PortfolioTotals;
  /** Callback errors the strategy threw (counted and isolated by the engine, as in a run). */
  errors(): number;
  /** Whether the error policy halted the strategy, and why. */
  halted(): string | undefined;
  /** The engine itself, for what the kit does not wrap (market view, exit levels). */
  readonly engine: Engine;
  /**
   * The one intent matching `match` among those placed since the last intent this returned (a buy
   * intent for `side: 'buy'`); throws STRATEGY_TEST_ASSERTION listing them otherwise.
   */
  expectIntent<M extends IntentMatch>(match?: M): IntentOf<M>;
  /** Throws STRATEGY_TEST_ASSERTION listing them when any intent matches `match` (by default, every intent counts). */
  expectNoIntent(match?: IntentMatch): void;
  /** The last fill matching `match`; throws STRATEGY_TEST_ASSERTION listing the fills otherwise. */
  expectFill(match?: FillMatch): Fill;
  /** The last denial with this code; throws STRATEGY_TEST_ASSERTION listing the denials otherwise. */
  expectDenied(code: string): DeniedEntry;
  /** Stops the strategy and the engine (timers cancelled, rooms left). */
  stop(): Promise<void>;
}

/** The intent type a match names: `BuyIntent` for `side: 'buy'`, `SellIntent` for `side: 'sell'`. */
export type IntentOf<M extends IntentMatch> = M extends { readonly side: 'buy' } ? BuyIntent : M extends { readonly side: 'sell' } ? SellIntent : OrderIntent;

const DEFAULT_START = Date.UTC(2026, 0, 1);

function failed(what: string, seen: string): ChainpilotError {
  return new ChainpilotError('STRATEGY_TEST_ASSERTION', `${what}; ${seen}`, { retry: 'not_retryable' });
}

/** A feed that joins rooms and never sends: the test sends the events. */
function silentFeed(): StreamFeed {
  return { subscribe: () => () => undefined, onGap: () => () => undefined };
}

/**
 * Starts `definition` on the real engine and paper executor with a manual clock. Parameters are
 * validated as a deployment's are (STRATEGY_INVALID_PARAMS names each bad one).
 */
export async function testStrategy<P, S>(definition: StrategyDefinition<P, S>, options: StrategyTestOptions = {}): Promise<StrategyTest> {
  const clock = manualClock(options.startAt ?? DEFAULT_START);
  const cash = parseSolToLamports(options.cashSol ?? '10');
  if (cash === undefined)
    throw new ChainpilotError('STRATEGY_TEST_BAD_EVENT', `cashSol: expected an exact SOL amount such as "10"; got ${JSON.stringify(options.cashSol)}`, {
      retry: 'not_retryable',
      context: { field: 'cashSol' },
    });
  const instance = instantiateStrategy(definition, options.params ?? {}, options.exits ? { exits: options.exits } : {});
  const intents: OrderIntent[] = [];
  const fills: Fill[] = [];
  const decisions: DecisionEntry[] = [];
  const paper = createPaperExecutor({ clock, market: { get: (mint) => engine.market.get(mint) }, latencyMs: options.latencyMs ?? 250 });
  const engine: Engine = createEngine({
    feed: silentFeed(),
    executor: {
      start: (sink: ExecutionSink) =>
        paper.start((r) => {
          if (r.type === 'filled') fills.push(r.fill);
          sink(r);
        }),
      submit: (intent) => paper.submit(intent),
      stop: (signal) => paper.stop(signal),
      cancel: (id, reason) => paper.cancel?.(id, reason) ?? false,
    },
    clock,
    random: seededRandom(options.seed ?? 1),
    strategies: [instance],
    risk: options.risk ?? {},
    startingCashLamports: cash,
    execution: { slippageBps: bps(options.slippageBps ?? 300), priorityFeeLamports: lamports(100_000n), defaultDecimals: 6 },
    decisions: (e) => decisions.push(e),
    onIntent: (i) => intents.push(i),
  });
  await engine.start();
  let taken = 0;
  const unwatched: DomainEvent[] = [];

  const intentList = (list: readonly OrderIntent[]): string => describeAll('intents', list);
  return {
    events: eventBuilders(() => clock.now()),
    clock,
    engine,
    now: () => clock.now(),
    advance: (ms) => clock.advance(ms),
    send: (...events) => {
      for (const e of events) {
        if (e.type !== 'gap' && !engine.rooms().includes(e.room)) unwatched.push(e);
        engine.dispatch(e);
      }
    },
    settle: () => new Promise<void>((resolve) => setImmediate(resolve)),
    rooms: () => engine.rooms(),
    unwatched: () => unwatched,
    intents: () => intents,
    fills: () => fills,
    denials: () => decisions.filter((d): d is DeniedEntry => d.kind === 'denied'),
    decisions: () => decisions,
    positions: () => engine.portfolio.open(),
    totals: () => engine.portfolio.totals(),
    errors: () => engine.stats.errorsOf(instance.id),
    halted: () => engine.haltedStrategies().find((h) => h.strategyId === instance.id)?.message,
    expectIntent<M extends IntentMatch>(match?: M): IntentOf<M> {
      const fresh = intents.slice(taken);
      const hits = fresh.filter((i) => matches(i, match ?? {}));
      if (hits.length !== 1)
        throw failed(`expected one new intent matching ${JSON.stringify(match ?? {}, bigintText)}, found ${hits.length}`, intentList(fresh));
      taken = intents.indexOf(hits[0]!) + 1;
      return hits[0] as IntentOf<M>; // matched on `side`, so of the side's type
    },
    expectNoIntent(match = {}) {
      const hits = intents.filter((i) => matches(i, match));
      if (hits.length > 0) throw failed(`expected no intent matching ${JSON.stringify(match, bigintText)}`, intentList(hits));
    },
    expectFill(match = {}) {
      const hit = [...fills].reverse().find((f) => matches(f, match));
      if (!hit) throw failed(`expected a fill matching ${JSON.stringify(match, bigintText)}`, describeAll('fills', fills));
      return hit;
    },
    expectDenied(code) {
      const denials = decisions.filter((d): d is DeniedEntry => d.kind === 'denied');
      const hit = [...denials].reverse().find((d) => d.code === code);
      if (!hit) throw failed(`expected a denial with code ${code}`, describeAll('denials', denials));
      return hit;
    },
    stop: () => engine.stop(),
  };
}

/** JSON.stringify's replacer for a match: bigint amounts as `123n`, a reason pattern as `/text/`. */
function bigintText(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value instanceof RegExp ? String(value) : value;
}
