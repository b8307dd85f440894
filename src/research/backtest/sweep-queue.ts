/**
 * Sweeps on BullMQ. The sweep puts each task on the `sweeps` queue; `chainpilot worker --sweeps`
 * processes on any machine run them and return the cell's metrics as the job's return value.
 *
 * - A job carries the deployment (absolute path and text), the sampling interval, the task, and the
 *   recording as absolute paths with each file's sha256. No environment: a worker substitutes
 *   `${VAR}` from its own. Recordings are **shared by path** (the same path on every machine, or
 *   `--recordings DIR` on the worker to find them by file name there), and content-addressed: a
 *   worker checks every file's sha256 before running and fails the job with
 *   BACKTEST_RECORDING_MISMATCH when its copy differs. Strategy files named by the deployment are read
 *   at their path too.
 * - The job id is the sha256 of the job and the chainpilot version: the same task of any sweep is
 *   the same job, so a re-run sweep reuses results still kept on Redis (1 day).
 * - A worker that dies mid-task loses its lock; after `lockDuration` another worker (or the same,
 *   restarted) takes the job and runs the task again from the start. A task is pure, so nothing is
 *   lost or counted twice and the results are byte-identical to a local sweep.
 */
import { createHash } from 'node:crypto';
import { basename, join, resolve } from 'node:path';
import { Queue, QueueEvents, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { ChainpilotError, describeError, isChainpilotError, type Logger } from '../../core/index.js';
import { chainpilotVersion } from '../record/version.js';
import type { Recording } from '../replay/recording-reader.js';
import { loadRecording } from './backtest-job.js';
import { runCell, type CellJob, type CellResult, type CellTask } from './sweep-cell.js';
import type { TaskRunner } from './sweep-pool.js';

export const SWEEP_QUEUE = 'sweeps';
export const DEFAULT_SWEEP_PREFIX = 'chainpilot';
/** Completed and failed jobs stay this long (a re-run sweep reuses them). */
const KEEP_S = 86_400;

export interface SweepJobData {
  readonly v: 1;
  readonly file: string;
  readonly fileText: string;
  readonly sampleMs: number;
  /** The strategies' own ids by position (null: not known), for `strategies[ID]` paths. */
  readonly strategyIds?: readonly (string | null)[];
  readonly recording: readonly { readonly path: string; readonly sha256: string }[];
  readonly task: CellTask;
}

export interface QueueRunnerOptions {
  readonly redisUrl: string;
  readonly prefix?: string;
  readonly job: CellJob;
  readonly data: readonly string[];
  readonly recording: Recording;
  readonly onResult: (r: CellResult) => void;
}

const jobId = (d: SweepJobData): string =>
  createHash('sha256')
    .update(JSON.stringify({ d, chainpilot: chainpilotVersion() }))
    .digest('hex');

/** The coordinator's side: each round's tasks become jobs; results come back in task order. */
export async function queueRunner(o: QueueRunnerOptions): Promise<TaskRunner> {
  const connection = new Redis(o.redisUrl, { maxRetriesPerRequest: null });
  const prefix = o.prefix ?? DEFAULT_SWEEP_PREFIX;
  const queue = new Queue<SweepJobData, CellResult>(SWEEP_QUEUE, { connection, prefix });
  const events = new QueueEvents(SWEEP_QUEUE, { connection: connection.duplicate(), prefix });
  await events.waitUntilReady();
  const recording = o.recording.files.map((f) => ({ path: resolve(f.path), sha256: f.sha256 }));
  return {
    async run(tasks) {
      const datas = tasks.map((task): SweepJobData => ({
        v: 1,
        file: resolve(o.job.file),
        fileText: o.job.fileText,
        sampleMs: o.job.sampleMs,
        ...(o.job.strategyIds ? { strategyIds: o.job.strategyIds.map((x) => x ?? null) } : {}),
        recording,
        task,
      }));
      const jobs: Job<SweepJobData, CellResult>[] = [];
      for (const d of datas) {
        const id = jobId(d);
        const old = await queue.getJob(id);
        // A failed job of an earlier sweep is tried again (the worker's copy of the recording may be fixed now).
        if (old && (await old.isFailed())) await old.remove();
        jobs.push(await queue.add('cell', d, { jobId: id, removeOnComplete: { age: KEEP_S }, removeOnFail: { age: KEEP_S } }));
      }
      return Promise.all(
        jobs.map(async (j, i) => {
          let r: CellResult;
          try {
            r = await j.waitUntilFinished(events);
          } catch (e) {
            throw new ChainpilotError(
              'BACKTEST_CELL_FAILED',
              `sweep cell ${tasks[i]!.cell.index} failed on a worker: ${e instanceof Error ? e.message : String(e)}`,
              {
                retry: 'not_retryable',
                context: { cell: tasks[i]!.cell.index },
              },
            );
          }
          o.onResult(r);
          return r;
        }),
      );
    },
    async close() {
      await events.close();
      await queue.close();
      await connection.quit();
    },
  };
}

export interface SweepWorkerOptions {
  readonly redisUrl: string;
  readonly prefix?: string;
  /** Look recordings up by file name in this directory instead of at the job's paths. */
  readonly recordingsDir?: string;
  readonly concurrency?: number;
  /** How long a task stays with a worker that stopped answering before another takes it (default 30 s). */
  readonly lockDurationMs?: number;
  readonly log: Logger;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface RunningSweepWorker {
  readonly completed: () => number;
  close(): Promise<void>;
}

/** The worker's side: runs every task it takes; one recording (by content) stays loaded between jobs. */
export function startSweepWorker(o: SweepWorkerOptions): RunningSweepWorker {
  const connection = new Redis(o.redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', (e: Error) => o.log.warn({ err: describeError(e) }, 'redis connection error; reconnecting'));
  let loaded: { key: string; recording: Recording } | undefined;
  let completed = 0;
  const recordingOf = (d: SweepJobData): Recording => {
    const key = d.recording.map((f) => f.sha256).join(',');
    if (loaded?.key === key) return loaded.recording;
    const paths = d.recording.map((f) => (o.recordingsDir ? join(o.recordingsDir, basename(f.path)) : f.path));
    const { recording } = loadRecording(paths);
    const have = new Set(recording.files.map((f) => f.sha256));
    const missing = d.recording.filter((f) => !have.has(f.sha256));
    if (missing.length > 0)
      throw new ChainpilotError(
        'BACKTEST_RECORDING_MISMATCH',
        `this worker's copy of the recording differs from the sweep's: ${missing.map((f) => basename(f.path)).join(', ')} (expected sha256 ${missing.map((f) => f.sha256.slice(0, 12)).join(', ')}…)`,
        { retry: 'not_retryable', context: { files: missing.length } },
      );
    loaded = { key, recording };
    return recording;
  };
  const worker = new Worker<SweepJobData, CellResult>(
    SWEEP_QUEUE,
    async (job) => {
      const d = job.data;
      const cellJob: CellJob = {
        file: d.file,
        fileText: d.fileText,
        sampleMs: d.sampleMs,
        ...(d.strategyIds ? { strategyIds: d.strategyIds.map((x) => x ?? undefined) } : {}),
        ...(o.env ? { env: o.env } : {}),
      };
      try {
        return await runCell(cellJob, recordingOf(d), d.task);
      } catch (e) {
        // BullMQ keeps only the message: put the code in it, so the sweep's error names it.
        if (isChainpilotError(e)) throw new ChainpilotError(e.code, `${e.code}: ${e.message}`, { retry: e.retry, cause: e });
        throw e;
      }
    },
    {
      connection,
      prefix: o.prefix ?? DEFAULT_SWEEP_PREFIX,
      concurrency: o.concurrency ?? 1,
      lockDuration: o.lockDurationMs ?? 30_000,
      stalledInterval: Math.max(250, Math.floor((o.lockDurationMs ?? 30_000) / 2)),
      // A task is pure: a stalled one is simply run again, however often its workers die.
      maxStalledCount: Number.MAX_SAFE_INTEGER,
    },
  );
  worker.on('completed', () => completed++);
  worker.on('failed', (job, e) => o.log.warn({ job: job?.id, err: describeError(e) }, 'sweep task failed'));
  worker.on('error', (e) => o.log.warn({ err: describeError(e) }, 'sweep worker error'));
  return {
    completed: () => completed,
    async close() {
      await worker.close();
      await connection.quit();
    },
  };
}
