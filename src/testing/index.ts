/**
 * `chainpilot/testing`: the strategy test kit. A strategy runs on the real engine and paper
 * executor with a manual clock; the test sends domain events built by `t.events`, moves time with
 * `t.advance(ms)` and reads the intents, denials, fills and positions it led to. Loads no Solana
 * SDK, no SQLite and no network code.
 */
export { testStrategy, type IntentOf, type StrategyTest, type StrategyTestOptions } from './strategy-test.js';
export { eventBuilders, type EventBuilders, type LaunchInit, type PriceInit, type TradeInit } from './events.js';
export type { DeniedEntry, FillMatch, IntentMatch } from './matchers.js';
export type { DecisionEntry } from '../engine/logs/decision-log.js';
export type { BuyIntent, Fill, OrderIntent, SellIntent } from '../engine/orders/execution-port.js';
export type { RiskLimits } from '../engine/orders/risk-gate.js';
export type { PortfolioTotals, Position } from '../engine/market/portfolio.js';
export type { ManualClock } from '../core/clock.js';
