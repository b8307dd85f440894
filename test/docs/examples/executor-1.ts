/** The example of docs/executor.md (line 9); checked by test/docs/doc-examples.test.ts, compiled by the typecheck. */
import type { ExecutionReport, OrderIntent } from '../../../src/index.js';
import type { LiveExecutorOptions } from '../../../src/runtime/index.js';
declare const rpc: LiveExecutorOptions['rpc'];
declare const swap: LiveExecutorOptions['swap'];
declare const VENUE_PROGRAM: string;
declare const engine: { onExecutionReport(r: ExecutionReport): void };
declare const intent: OrderIntent;
// #region doc
import { systemClock } from '../../../src/index.js';
import { createLiveExecutor, openSqliteJournal, signerFromKeypairFile } from '../../../src/runtime/index.js';

const executor = createLiveExecutor({
  rpc,                     // anything with the LiveRpcPort methods (the JSON-RPC client)
  swap,                    // anything with buildSwap (the swap client)
  signer: signerFromKeypairFile('wallet.json'),
  journal: openSqliteJournal({ path: '.chainpilot/journal.sqlite' }),
  clock: systemClock(),
  settings: { maxTradeLamports: 500_000_000n, maxDayLamports: 5_000_000_000n, allowedPrograms: [VENUE_PROGRAM] },
});
await executor.start((report) => engine.onExecutionReport(report)); // reconciles first
await executor.submit(intent);                                       // resolves once journaled
// #endregion doc
