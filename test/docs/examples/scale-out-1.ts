/** The example of docs/scale-out.md (line 191); checked by test/docs/doc-examples.test.ts, compiled by the typecheck. */
import type { QueueExecutionStats as Real } from '../../../src/runtime/index.js';
// #region doc
interface QueueExecutionStats {
  wallet: string;
  queueDepth: number;        // jobs waiting, delayed, prioritized or paused
  activeJobs: number;        // running now, at most execution.queue.concurrency, all in the lease holder
  activeWorkers: number;     // BullMQ workers connected to the wallet's queue
  leaseTakeovers: number;    // leases taken from a holder that never released them (all time)
  leaseEpoch: number;
  reportsApplied: number;    // this engine run
  duplicateReports: number;  // dropped by the signature/intent de-duplication
  reportsBehind: number;     // stream entries not yet delivered + delivered but unacknowledged
  reportLagMs: number | undefined; // age of the last applied report when applied
  loopErrors: number;        // report-loop read errors and undecodable entries
}
// #endregion doc
// The documented shape is the exported one, both ways.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const same: Same<QueueExecutionStats, Real> = true;
