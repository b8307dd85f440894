/**
 * `chainpilot/sim`: the embedded market simulator (REST, Datastream, and with `ledgerServices()`
 * the LiteSVM ledger behind JSON-RPC and the swap service). Loads LiteSVM and the Solana SDKs.
 */
export { startSimulator } from './start-simulator.js';
export type { StartSimulatorOptions, RunningSimulator } from './start-simulator.js';
export type * from './market-port.js';
export type { FaultSettings } from './faults/fault-settings.js';
export type { MarketSettings } from './sim-settings.js';
export { ledgerServices, createLedger, WRAPPED_SOL_MINT } from './ledger/index.js';
export type { LedgerServicesOptions, Ledger, LedgerOptions, FaultRates, FaultPlan, LandingFault, RpcFault } from './ledger/index.js';
