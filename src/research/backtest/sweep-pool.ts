/**
 * Task runners of a sweep: in this thread, or on lanes (this thread and worker threads) that share
 * one prepared recording. Results come back in task order whatever finishes first.
 *
 * The lanes: `threads` worker threads start when the pool is made (their modules load while this
 * thread reads the recording) and stay up for every round of the search, so each keeps the code V8
 * compiled for its first cell. Each opens the recording from the shared memory it is sent
 * (sweep-shared.ts). A round's tasks go to every worker at once; every lane, this thread included,
 * takes the next task from a counter in shared memory (`Atomics.add`), so no lane waits for this
 * thread to hand out work while it runs a cell itself.
 *
 * A cell that throws stops the lanes taking new tasks; the round fails with BACKTEST_CELL_FAILED
 * naming the lowest failed cell once the cells in flight are done. Tasks are taken in order, so
 * that is the first failing cell of the round, whatever the number of lanes.
 */
import type { Worker } from 'node:worker_threads';
import { ChainpilotError } from '../../core/index.js';
import { siblingModule, startModuleWorker } from '../../runtime/module-worker.js';
import type { Recording } from '../replay/recording-reader.js';
import type { RunTasks } from './search-methods.js';
import { runCell, type CellJob, type CellResult, type CellTask, type KnownDeployments } from './sweep-cell.js';
import type { SharedRecording } from './sweep-shared.js';

/** What a sweep worker thread starts with. */
export interface SweepWorkerData {
  readonly job: CellJob;
}

/** Messages to a worker: the recording (once), then each round. */
export type ToWorker =
  | { readonly kind: 'recording'; readonly shared: SharedRecording }
  | { readonly kind: 'round'; readonly round: number; readonly tasks: readonly CellTask[]; readonly next: Int32Array };

/** Messages from a worker: the recording opened, each cell's result or failure, and the end of its part of a round. */
export type FromWorker =
  | { readonly kind: 'ready' }
  | { readonly kind: 'result'; readonly round: number; readonly i: number; readonly result: CellResult }
  | { readonly kind: 'failed'; readonly round: number; readonly i: number; readonly message: string }
  | { readonly kind: 'idle'; readonly round: number };

export interface TaskRunner {
  readonly run: RunTasks;
  close(): Promise<void>;
}

const failed = (index: number, message: string): ChainpilotError =>
  new ChainpilotError('BACKTEST_CELL_FAILED', `sweep cell ${index} failed: ${message}`, { retry: 'not_retryable', context: { cell: index } });

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Far past any round's length: a lane that reads it takes no more tasks. */
const STOP = 0x3fffffff;

/**
 * Takes tasks from the round's shared counter until none is left (or the round stopped), running
 * each; `done` and `fail` see every outcome. Used by this thread and by each worker.
 */
export async function runLane(
  job: CellJob,
  recording: Recording,
  tasks: readonly CellTask[],
  next: Int32Array,
  done: (i: number, r: CellResult) => void,
  fail: (i: number, message: string) => void,
  between: () => Promise<void> = () => Promise.resolve(),
  known?: KnownDeployments,
): Promise<void> {
  for (;;) {
    const i = Atomics.add(next, 0, 1);
    if (i >= tasks.length) return;
    let r: CellResult;
    try {
      r = await runCell(job, recording, tasks[i]!, known);
    } catch (e) {
      Atomics.store(next, 0, STOP);
      fail(i, messageOf(e));
      return;
    }
    done(i, r);
    await between();
  }
}

/** Runs tasks one after the other in this thread; `onResult` sees each as it finishes. `known`: cells' deployments this thread has validated. */
export function inlineRunner(job: CellJob, recording: Recording, onResult: (r: CellResult) => void, known?: KnownDeployments): TaskRunner {
  return {
    async run(tasks) {
      const out: CellResult[] = [];
      for (const t of tasks) {
        let r: CellResult;
        try {
          r = await runCell(job, recording, t, known);
        } catch (e) {
          throw failed(t.cell.index, messageOf(e));
        }
        out.push(r);
        onResult(r);
      }
      return out;
    },
    close: () => Promise.resolve(),
  };
}

export interface LanePool extends TaskRunner {
  /** Hands every worker the shared recording, and this thread its own copy; once, before `run`. */
  share(recording: Recording, shared: SharedRecording): void;
  /** Resolves when every worker has opened the recording. */
  ready(): Promise<void>;
  /** Cells run so far by each lane: this thread first, then each worker. */
  cellsByLane(): readonly number[];
}

interface Round {
  readonly id: number;
  readonly tasks: readonly CellTask[];
  readonly out: (CellResult | undefined)[];
  readonly failures: { i: number; message: string }[];
  /** Workers whose part of the round is not over yet. */
  busy: number;
  settle: (() => void) | undefined;
}

const yieldTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * This thread and `threads` worker threads, started now. Call `share` once the recording is
 * loaded; `run` waits for it. `known`: deployments this thread has validated (it may fill the map
 * later, before `run`); this thread's lane runs those cells without parsing their deployment again.
 */
export function lanePool(threads: number, job: CellJob, onResult: (r: CellResult) => void, known?: KnownDeployments): LanePool {
  const entry = siblingModule('sweep-worker', import.meta.url);
  const data: SweepWorkerData = { job };
  const workers: Worker[] = [];
  const counts = new Array<number>(threads + 1).fill(0);
  let recording: Recording | undefined;
  let round: Round | undefined;
  let rounds = 0;
  let broken: Error | undefined;
  /** (read through a call: the workers' handlers set it while `run` awaits) */
  const brokenNow = (): Error | undefined => broken;
  let opened = 0;
  let onReady: (() => void) | undefined;
  const readyP = new Promise<void>((r) => (onReady = r));
  const breakWith = (e: Error): void => {
    broken ??= e;
    round?.settle?.();
  };
  for (let w = 0; w < threads; w++) {
    const worker = startModuleWorker(entry, { ...data });
    worker.on('message', (m: FromWorker) => {
      if (m.kind === 'ready') {
        if (++opened === threads) onReady?.();
        return;
      }
      const r = round;
      if (!r || m.round !== r.id) return;
      if (m.kind === 'result') {
        r.out[m.i] = m.result;
        counts[w + 1]!++;
        onResult(m.result);
      } else if (m.kind === 'failed') r.failures.push({ i: m.i, message: m.message });
      else if (--r.busy === 0) r.settle?.();
    });
    worker.on('error', (e: Error) => breakWith(e));
    worker.on('exit', (code) =>
      breakWith(new ChainpilotError('BACKTEST_CELL_FAILED', `a sweep worker thread exited (code ${code})`, { retry: 'not_retryable' })),
    );
    workers.push(worker);
  }
  if (threads === 0) onReady?.();
  return {
    share(rec, shared) {
      recording = rec;
      const m: ToWorker = { kind: 'recording', shared };
      for (const w of workers) w.postMessage(m);
    },
    ready: () => readyP,
    cellsByLane: () => [...counts],
    async run(tasks) {
      if (!recording)
        throw new ChainpilotError('CORE_INVALID_ARGUMENT', 'sweep: the lanes were given no recording (share it first)', { retry: 'not_retryable' });
      if (broken) throw broken;
      const r: Round = { id: ++rounds, tasks, out: new Array<CellResult | undefined>(tasks.length), failures: [], busy: workers.length, settle: undefined };
      const workersDone = new Promise<void>((resolve) => (r.settle = resolve));
      if (r.busy === 0) r.settle?.();
      round = r;
      const next = new Int32Array(new SharedArrayBuffer(4));
      const m: ToWorker = { kind: 'round', round: r.id, tasks, next };
      for (const w of workers) w.postMessage(m);
      await runLane(
        job,
        recording,
        tasks,
        next,
        (i, res) => {
          r.out[i] = res;
          counts[0]!++;
          onResult(res);
        },
        (i, message) => r.failures.push({ i, message }),
        // let the workers' results through between cells (progress), and stop early when a worker died
        () => (broken ? Promise.reject(broken) : yieldTurn()),
        known,
      );
      await workersDone;
      round = undefined;
      const b = brokenNow();
      if (b) throw b;
      const first = r.failures.sort((a, b) => a.i - b.i)[0];
      if (first) throw failed(tasks[first.i]!.cell.index, first.message);
      return r.out as CellResult[];
    },
    async close() {
      broken ??= new ChainpilotError('BACKTEST_CELL_FAILED', 'the sweep lanes are closed', { retry: 'not_retryable' });
      for (const w of workers) w.removeAllListeners('exit');
      await Promise.all(workers.map((w) => w.terminate()));
      workers.length = 0;
    },
  };
}
