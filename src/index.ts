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
export { checkRedisDurability, openRedisJournal, type RedisJournal } from './executors/journal/redis-journal.js';
export { createQueueExecutor, type QueueExecutionStats, type QueueExecutor, type QueueExecutorOptions } from './executors/queue/queue-executor.js';
export { startWalletWorker, type WalletWorker, type WalletWorkerStats } from './executors/queue/wallet-worker.js';
export { keypairSigner, signerFromEnv, signerFromKeypairFile, type Signer } from './executors/signer/signer.js';
export { startSimulator } from './sim/start-simulator.js';
export type { StartSimulatorOptions, RunningSimulator } from './sim/start-simulator.js';
export type * from './sim/market-port.js';
export type { FaultSettings } from './sim/faults/fault-settings.js';
export type { MarketSettings } from './sim/sim-settings.js';
export { ledgerServices, createLedger, WRAPPED_SOL_MINT } from './sim/ledger/index.js';
export type { LedgerServicesOptions, Ledger, LedgerOptions, FaultRates, FaultPlan, LandingFault, RpcFault } from './sim/ledger/index.js';
export * from './client/index.js';
export { defineStrategy } from './engine/strategy-api.js';
export type * from './engine/strategy-api.js';
/** Engine domain events (names overlap the Datastream payload types, hence the namespace). */
export type * as EngineEvents from './engine/events.js';
export type { ExitRules, TakeProfitLevel } from './engine/exit-rules.js';
export { createEngine, type Engine, type EngineOptions } from './engine/engine.js';
export { instantiateStrategy, type StrategyInstance } from './engine/strategy-instance.js';
export { createPaperExecutor, type PaperExecutor, type PaperExecutorOptions } from './executors/paper/paper-executor.js';
export { loadDeployment, parseDeployment, deploymentJsonSchema, type Deployment } from './config/index.js';
export { createPaperSession, type PaperSession } from './runtime/paper-session.js';
export { runPaper } from './runtime/run-paper.js';
export { createDeployment, type RuntimeDeps, type RuntimeHandle } from './runtime/create-deployment.js';
export type * from './runtime/deployment-handle.js';
export { runLive, type RunLiveOptions, type LiveRunResult, type LiveRunView } from './runtime/run-live.js';
export { checkLiveDeployment, missingLimits, type LiveConfirmation } from './runtime/live-rails.js';
export { checkLiveNetwork, GENESIS_HASHES, type LiveNetwork } from './runtime/live-network.js';
