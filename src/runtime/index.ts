/**
 * `chainpilot/runtime`: everything that composes and runs a deployment: configuration, the engine,
 * the paper and live executors with their journal and signer, and the composition roots of each
 * mode. Loads the Solana SDK and better-sqlite3 (the live executor's journal).
 */
export { loadDeployment, parseDeployment, deploymentJsonSchema, type Deployment } from '../config/index.js';
export { createEngine, type Engine, type EngineOptions } from '../engine/engine.js';
export { instantiateStrategy, type StrategyInstance } from '../engine/strategy/strategy-instance.js';
export { createPaperExecutor, type PaperExecutor, type PaperExecutorOptions } from '../executors/paper/paper-executor.js';
export { createLiveExecutor, type LiveExecutor, type LiveExecutorOptions } from '../executors/live/live-executor.js';
export type { LiveSettings, LiveSettingsInput } from '../executors/live/live-settings.js';
export type { LiveRpcPort, SwapBuilderPort } from '../executors/live/ports.js';
export { openSqliteJournal } from '../executors/journal/sqlite-journal.js';
export type { IntentJournal, IntentRecord, IntentState } from '../executors/journal/journal.js';
export { keypairSigner, signerFromEnv, signerFromKeypairFile, type Signer } from '../executors/signer/signer.js';
export { createPaperSession, type PaperSession } from './paper/paper-session.js';
export { runPaper } from './shell/run-paper.js';
export { runLive, type RunLiveOptions, type LiveRunResult, type LiveRunView } from './shell/run-live.js';
export { checkLiveDeployment, missingLimits, type LiveConfirmation } from './live/live-rails.js';
export { checkLiveNetwork, GENESIS_HASHES, type LiveNetwork } from './live/live-network.js';
export { validateDeploymentFile } from './shell/validate-deployment.js';
export { runSimulator, type SimRuntimeOptions } from './shell/sim-runtime.js';
export type * from './handle/deployment-handle.js';
export { createDeployment, type RuntimeDeps, type RuntimeHandle } from './handle/create-deployment.js';
export { checkRedisDurability, openRedisJournal, type RedisJournal } from '../executors/journal/redis-journal.js';
export { createQueueExecutor, type QueueExecutionStats, type QueueExecutor, type QueueExecutorOptions } from '../executors/queue/queue-executor.js';
export { startWalletWorker, type WalletWorker, type WalletWorkerStats } from '../executors/queue/wallet-worker.js';
