/**
 * Wires queued execution (docs/scale-out.md) for a composition root: with `execution.queue` in the
 * deployment, the engine's executor is the queue executor of the deployment's wallet, and the
 * start-up catch-up tells which positions to restore. A holder injects the executor as
 * `deps.executor` of the deployment handle; `createDeployment` calls this when it is absent.
 */
import type { Clock, Logger } from '../../core/index.js';
import type { Deployment } from '../../config/index.js';
import type { RestoredFill } from '../../engine/engine.js';
import type { ExecutionReport } from '../../engine/orders/execution-port.js';
import { createQueueExecutor, type QueueExecutionStats, type QueueExecutor } from '../../executors/queue/queue-executor.js';
import { walletSigner } from '../live/live-wallet.js';

export interface QueuedExecution {
  readonly executor: QueueExecutor;
  readonly wallet: string;
  /**
   * Waits until an earlier run's queued and unresolved intents settled (workers finish them), then
   * returns the fills to rebuild positions from (every landed intent of the wallet's journal) and
   * the reports of that earlier run. Call before building the engine; `executor.start` then attaches.
   */
  catchUp(): Promise<{ readonly restoredFills: readonly RestoredFill[]; readonly reports: readonly ExecutionReport[] }>;
  /** Queue metrics for the daemon's /metrics. */
  stats(): Promise<QueueExecutionStats>;
}

export interface QueuedExecutionDeps {
  readonly clock: Clock;
  readonly log: Logger;
  /** Tests and benchmarks on a throw-away Redis only (see QueueExecutorOptions). */
  readonly unsafeAllowVolatileRedis?: boolean;
  /** Consumer name in the report group (default: the deployment's name). */
  readonly consumer?: string;
}

/** The queued execution of `d`, or undefined when `execution.queue` is not set. */
export function createQueuedExecution(d: Deployment, deps: QueuedExecutionDeps): QueuedExecution | undefined {
  const q = d.execution.queue;
  if (!q) return undefined;
  const wallet = q.wallet ?? walletSigner(d).address;
  const executor = createQueueExecutor({
    url: q.url,
    prefix: q.prefix,
    wallet,
    clock: deps.clock,
    logger: deps.log.child({ part: 'queue' }),
    catchUpTimeoutMs: q.catchUpTimeout,
    concurrency: q.concurrency,
    consumer: deps.consumer ?? d.name,
    ...(deps.unsafeAllowVolatileRedis ? { unsafeAllowVolatileRedis: true } : {}),
  });
  return {
    executor,
    wallet,
    async catchUp() {
      const { reports, landed } = await executor.catchUp();
      const restoredFills = landed.flatMap((r) => (r.fill ? [{ strategyId: r.intent.strategyId, fill: r.fill }] : []));
      return { restoredFills, reports };
    },
    stats: () => executor.stats(),
  };
}
