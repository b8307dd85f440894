/**
 * `chainpilot`: the typed clients of the service (token data REST, prediction markets, Datastream,
 * JSON-RPC, swap), the core units and coded errors, and the types of every port, event and
 * strategy. Loads no simulator, no native addon and no composition root: those are the subpaths
 * `chainpilot/sim` and `chainpilot/runtime`; strategy files import `chainpilot/strategy`.
 */
export * from './core/index.js';
export type * from './engine/orders/execution-port.js';
export type * from './engine/events/feed-port.js';
export * from './client/datastream/index.js';
export * from './client/index.js';
export { defineStrategy } from './engine/strategy/strategy-api.js';
export type * from './engine/strategy/strategy-api.js';
/** Engine domain events (names overlap the Datastream payload types, hence the namespace). */
export type * as EngineEvents from './engine/events/events.js';
export type { ExitRules, TakeProfitLevel } from './engine/exits/exit-rules.js';
export type { Deployment } from './config/index.js';
