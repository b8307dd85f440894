/**
 * chainpilot's public entry. Users script against the service with the typed clients, write
 * strategies against the strategy API, and run deployments through the runtime.
 */
export * from './core/index.js';
export type * from './engine/execution-port.js';
export type * from './engine/feed-port.js';
export * from './client/datastream/index.js';
export { startSimulator } from './sim/start-simulator.js';
export type { StartSimulatorOptions, RunningSimulator } from './sim/start-simulator.js';
export type * from './sim/market-port.js';
export type { FaultSettings } from './sim/faults/fault-settings.js';
export type { MarketSettings } from './sim/sim-settings.js';
