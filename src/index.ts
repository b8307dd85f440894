/**
 * chainpilot's public entry. Users script against the service with the typed clients, write
 * strategies against the strategy API, and run deployments through the runtime.
 */
export * from './core/index.js';
export type * from './engine/execution-port.js';
export type * from './engine/feed-port.js';
export * from './client/datastream/index.js';
export { createLiveExecutor, type LiveExecutor, type LiveExecutorOptions } from './executors/live/live-executor.js';
export type { LiveSettings, LiveSettingsInput } from './executors/live/live-settings.js';
export type { LiveRpcPort, SwapBuilderPort } from './executors/live/ports.js';
export { openSqliteJournal } from './executors/journal/sqlite-journal.js';
export type { IntentJournal, IntentRecord, IntentState } from './executors/journal/journal.js';
export { keypairSigner, signerFromEnv, signerFromKeypairFile, type Signer } from './executors/signer/signer.js';
export { startSimulator } from './sim/start-simulator.js';
export type { StartSimulatorOptions, RunningSimulator } from './sim/start-simulator.js';
export type * from './sim/market-port.js';
export type { FaultSettings } from './sim/faults/fault-settings.js';
export type { MarketSettings } from './sim/sim-settings.js';
export { ledgerServices, createLedger, WRAPPED_SOL_MINT } from './sim/ledger/index.js';
export type { LedgerServicesOptions, Ledger, LedgerOptions, FaultRates, FaultPlan, LandingFault, RpcFault } from './sim/ledger/index.js';
export * from './client/index.js';
