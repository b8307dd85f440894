/**
 * What a composition root reports about a deployment's own parts to whoever holds the handle (the
 * daemon wires it to Prometheus, src/service/daemon/service-metrics.ts). Optional: a root given no
 * telemetry measures nothing. Every method is synchronous and must not throw.
 */
import type { HttpTelemetry } from '../../client/http/index.js';
import type { QueueExecutionStats } from '../../executors/queue/queue-executor.js';

/** Journal writes that are timed (reads are not). */
export type JournalWriteOp = 'create' | 'markBuilt' | 'recordSigned' | 'markSent' | 'resolve' | 'deny' | 'markReported';

export interface DeploymentTelemetry {
  /** Observer of the deployment's own service clients (live: JSON-RPC and swap). */
  readonly client: HttpTelemetry;
  /** One journal write took `seconds` (the process's monotonic timer, not the run clock). */
  journalWrite(op: JournalWriteOp, seconds: number, outcome: 'ok' | 'error'): void;
  /** Registers the deployment's queued execution (read at scrape time); returns the unregister. */
  queue(stats: () => Promise<QueueExecutionStats>): () => void;
}
