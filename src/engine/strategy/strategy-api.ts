/**
 * The strategy API: what a strategy declares (`defineStrategy`) and the only context it gets.
 * Strategies never touch sockets, keys, timers or randomness of their own: everything goes through
 * the context, which the engine builds on the injected clock and ports.
 */
import type { z } from 'zod';
import type { Lamports, RawAmount, UnixMs } from '../../core/index.js';
import type { Fill } from '../orders/execution-port.js';
import type {
  CryptoTick,
  CurveMilestone,
  DcaEvent,
  LiquidityChanged,
  PredictionPrice,
  PriceTick,
  SafetySignal,
  StatsUpdated,
  StreamGapped,
  SwapTraded,
  TokenGraduated,
  TokenGraduating,
  TokenLaunched,
  WalletPnlUpdated,
} from '../events/events.js';
import type { ExitRules } from '../exits/exit-rules.js';
import type { TradeFlow } from '../market/market-flow.js';
import type { BarSeries } from '../market/market-bars.js';
import type { Account } from './account-view.js';
import type { TrackOptions, Tracked } from './strategy-tracking.js';
import type { MarketObservation } from '../market/market-view.js';
import type { ParamSpace } from './param-space.js';
import type { Position } from '../market/portfolio.js';

/** Result of `ctx.buy` / `ctx.sell`: the intent id, or the denial as a value. */
export type OrderResult = { readonly ok: true; readonly intentId: string } | { readonly ok: false; readonly code: string; readonly reason: string };

export interface BuyOrder {
  readonly mint: string;
  /**
   * SOL to spend, in lamports: a `Lamports` from `solParam` or a bigint literal (`100_000_000n`).
   * The engine checks it (a bigint > 0, else denied with RISK_INVALID_AMOUNT) and brands it.
   */
  readonly lamports: bigint;
  /** Why (goes to the decision log). */
  readonly reason: string;
  /** Overrides the deployment's default slippage. */
  readonly slippageBps?: number;
  /**
   * Allows a buy while an earlier buy of the same token by this strategy is unresolved (default:
   * denied with `ENGINE_BUY_IN_FLIGHT`, so `if (ctx.position(mint)) return` cannot double-buy).
   */
  readonly allowConcurrent?: boolean;
}

interface PendingCommon {
  readonly intentId: string;
  readonly mint: string;
  /** @deprecated Lamports for a buy, raw token units for a sell: read `spendLamports` or `sellRaw`. */
  readonly amountIn: bigint;
  readonly createdAt: UnixMs;
}

/** An intent of this strategy handed to the executor and not yet filled, failed or expired. */
export type PendingIntent =
  | (PendingCommon & { readonly side: 'buy'; /** SOL being spent. */ readonly spendLamports: Lamports })
  | (PendingCommon & { readonly side: 'sell'; /** Raw token units being sold. */ readonly sellRaw: RawAmount });

/** An intent of this strategy that did not fill: rejected, failed on chain, or expired. */
export interface IntentFailed {
  readonly intentId: string;
  readonly side: 'buy' | 'sell';
  readonly mint: string;
  /** `rejected`: nothing was sent or the executor refused it; `failed`: it landed and failed (fees paid); `expired`: it never landed. */
  readonly outcome: 'rejected' | 'failed' | 'expired';
  /** Stable code (`PAPER_NO_PRICE`, `EXPIRED`, an executor or chain code). */
  readonly code: string;
  readonly reason: string;
  readonly at: UnixMs;
}

/** Options of `ctx.watch`. */
export interface WatchOptions {
  /** Leave the room again after this long on the engine clock (unless unwatched earlier). */
  readonly ttlMs?: number;
}

export interface SellOrder {
  readonly mint: string;
  /** Part of the position to sell, in bps of what is held (10 000 = all). Default all. */
  readonly fractionBps?: number;
  /** Or an exact raw amount (a bigint > 0, else denied with RISK_INVALID_AMOUNT). */
  readonly amountRaw?: bigint;
  readonly reason: string;
  readonly slippageBps?: number;
}

/** Read-only REST look-ups (cached and rate-limited by the engine). */
export interface StrategyData {
  /** GET `path` on the token data API; resolves to parsed JSON. Validate it with zod. */
  get(path: string, query?: Readonly<Record<string, string | number | boolean>>, signal?: AbortSignal): Promise<unknown>;
}

export interface StrategyLog {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export interface TimerFired {
  readonly name: string;
  readonly payload: unknown;
  readonly at: UnixMs;
}

/** Everything a strategy can do. Nothing else is reachable. */
export interface StrategyContext<P = unknown, S = unknown> {
  readonly strategyId: string;
  readonly params: P;
  /** Mutable state owned by this strategy. */
  readonly state: S;
  readonly clock: { now(): UnixMs };
  readonly log: StrategyLog;
  readonly data: StrategyData;
  /** What the engine observed of a token (price, pool, safety values). */
  market(mint: string): MarketObservation | undefined;
  /**
   * Trade flow of a token over the last `windowMs` (1 ms to 1 h) of the run clock: swaps, buys and
   * sells, SOL volume in lamports, distinct buyers and sellers, VWAP. Built from every swap the
   * engine sees (watch `transaction:{mint}`); `complete` says whether the engine kept the whole window.
   */
  flow(mint: string, windowMs: number): TradeFlow;
  /**
   * Time bars of a token (`'1m'`, `'5m'`, whole seconds from 1 s to 1 d): OHLC as exact decimal
   * strings and SOL volume, from its swaps and price ticks, with EMA, RSI and ATR over the closed
   * bars. The first call for an interval starts building it for every token: ask in `onStart`.
   */
  bars(mint: string, interval: string | number): BarSeries;
  /**
   * Cash, equity, exposure and the room left under each risk limit, as the risk gate sees them now;
   * with a token, also the per-token room and cooldown. `maxBuyLamports` is the largest buy those
   * limits let through (0: do not try).
   */
  account(mint?: string): Account;
  buy(order: BuyOrder): OrderResult;
  sell(order: SellOrder): OrderResult;
  /**
   * This strategy's position in `mint`, if any: open, or closed among the book's latest 1,024
   * closed positions (`MAX_CLOSED_POSITIONS`; an older closed one is forgotten, so test
   * `?.tokenRaw` to ask whether you hold the token, and keep your own set to remember every token
   * you ever traded).
   */
  position(mint: string): Position | undefined;
  /** This strategy's open positions. */
  positions(): Position[];
  /** This strategy's intents in flight (handed to the executor, not yet resolved), optionally for one token. */
  pending(mint?: string): readonly PendingIntent[];
  /** Calls `onTimer` after `delayMs` of the engine clock. Returns an id for `cancel`. */
  schedule(delayMs: number, name: string, payload?: unknown): number;
  cancel(timerId: number): void;
  /**
   * Joins a room for this strategy (for example `holders:{mint}` before deciding). Rooms whose name
   * contains a token are left when this strategy's position in that token closes; `ttlMs` leaves it
   * after a time. At most 1 000 rooms per strategy.
   */
  watch(room: string, options?: WatchOptions): void;
  unwatch(room: string): void;
  /**
   * Tracks a token: joins `rooms` and keeps `state` for it until `ttlMs` passes on the engine clock,
   * an intent of this strategy on it fills or fails (after `onFill` / `onIntentFailed` ran), or
   * `untrack(mint)`; then leaves those rooms and forgets the state, together. Tracking a tracked
   * token re-arms its ttl, joins the new rooms and keeps its state. At most 1 000 tokens.
   */
  track<T = Record<string, unknown>>(mint: string, options: TrackOptions<T>): Tracked<T>;
  /** The token's tracking, if it is tracked (`state` typed as you tracked it). */
  tracked<T = Record<string, unknown>>(mint: string): Tracked<T> | undefined;
  /** Ends the token's tracking now (rooms left, state forgotten). */
  untrack(mint: string): void;
}

/** A strategy: parameters schema, rooms, exit defaults and handlers. */
export interface StrategyDefinition<P = unknown, S = unknown> {
  readonly id: string;
  readonly description?: string;
  /** Schema of the `params:` block in the deployment (use z.strictObject). */
  readonly params: z.ZodType<P>;
  /**
   * The search space of some parameters (`range(min, max, step)`, `choice(...)`): what
   * `chainpilot sweep` searches when no `--set` is given. Every value must pass `params`.
   */
  readonly space?: { readonly [K in keyof P]?: ParamSpace };
  /** Rooms to join at start. */
  rooms?(params: P): readonly string[];
  initialState?(params: P): S;
  /** Default exit rules (the deployment's `exits:` block overrides them). */
  exits?(params: P): ExitRules;
  onStart?(ctx: StrategyContext<P, S>): void;
  onLaunch?(event: TokenLaunched, ctx: StrategyContext<P, S>): void | Promise<void>;
  onCurve?(event: CurveMilestone, ctx: StrategyContext<P, S>): void | Promise<void>;
  onGraduating?(event: TokenGraduating, ctx: StrategyContext<P, S>): void | Promise<void>;
  onGraduated?(event: TokenGraduated, ctx: StrategyContext<P, S>): void | Promise<void>;
  onPrice?(event: PriceTick, ctx: StrategyContext<P, S>): void | Promise<void>;
  onSafety?(event: SafetySignal, ctx: StrategyContext<P, S>): void | Promise<void>;
  onLiquidity?(event: LiquidityChanged, ctx: StrategyContext<P, S>): void | Promise<void>;
  onTrade?(event: SwapTraded, ctx: StrategyContext<P, S>): void | Promise<void>;
  onStats?(event: StatsUpdated, ctx: StrategyContext<P, S>): void | Promise<void>;
  onWalletPnl?(event: WalletPnlUpdated, ctx: StrategyContext<P, S>): void | Promise<void>;
  onDca?(event: DcaEvent, ctx: StrategyContext<P, S>): void | Promise<void>;
  onPrediction?(event: PredictionPrice, ctx: StrategyContext<P, S>): void | Promise<void>;
  onCrypto?(event: CryptoTick, ctx: StrategyContext<P, S>): void | Promise<void>;
  onGap?(event: StreamGapped, ctx: StrategyContext<P, S>): void | Promise<void>;
  onFill?(event: Fill, ctx: StrategyContext<P, S>): void | Promise<void>;
  /** One of this strategy's intents was rejected, failed or expired (nothing or not all was bought or sold). */
  onIntentFailed?(event: IntentFailed, ctx: StrategyContext<P, S>): void | Promise<void>;
  onTimer?(event: TimerFired, ctx: StrategyContext<P, S>): void | Promise<void>;
}

/** Declares a strategy. Identity function that fixes the parameter and state types. */
export function defineStrategy<P, S = Record<string, never>>(def: StrategyDefinition<P, S>): StrategyDefinition<P, S> {
  return def;
}
