/**
 * The strategy API, the only import a strategy needs: `defineStrategy`, the context and event
 * types, zod for parameter schemas, `solParam` for exact SOL amounts and `durationParam` for durations.
 */
export { defineStrategy } from '../engine/strategy/strategy-api.js';
export type {
  BuyOrder,
  IntentFailed,
  OrderResult,
  PendingIntent,
  SellOrder,
  StrategyContext,
  StrategyDefinition,
  StrategyData,
  StrategyLog,
  TimerFired,
  WatchOptions,
} from '../engine/strategy/strategy-api.js';
export type * from '../engine/events/events.js';
export type { ExitRules, TakeProfitLevel } from '../engine/exits/exit-rules.js';
export type { Fill } from '../engine/orders/execution-port.js';
export type { MarketObservation } from '../engine/market/market-view.js';
export type { TradeFlow } from '../engine/market/market-flow.js';
export type { Bar, BarSeries } from '../engine/market/market-bars.js';
export type { Account, AccountRoom } from '../engine/strategy/account-view.js';
export type { TrackOptions, Tracked } from '../engine/strategy/strategy-tracking.js';
export type { Position } from '../engine/market/portfolio.js';
/** The amount brands of fills, positions and `solParam` values (bigints underneath). */
export type { Lamports, RawAmount } from '../core/units.js';
export { z } from 'zod';
/** Search spaces of parameters (`space:` in `defineStrategy`) and what a sweep objective sees. */
export { choice, range } from '../engine/strategy/param-space.js';
export type { ParamSpace, ParamValue, WindowMetrics } from '../engine/strategy/param-space.js';
/** Exact SOL parameters: `buySol: solParam.prefault('0.05')` gives `Lamports` (a bigint). */
export { solParam } from './sol.js';
/** Room names built, not concatenated: `ctx.watch(rooms.price(mint))`; `checkRoomName` is what `ctx.watch` refuses. */
export { rooms, checkRoomName, type Room, type CurveMarket, type DcaEventRoom, type EnrichOption } from '../core/room-names.js';
/** Duration parameters: `confirmMs: durationParam().default(5_000)` takes 5000 or "5s" and gives milliseconds. */
export { durationParam } from './duration-param.js';
