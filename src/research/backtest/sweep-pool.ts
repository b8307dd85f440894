/**
 * Task runners of a sweep: in this thread, or on a pool of worker threads that each load the
 * recording once (from its prepared cache) and stay up for every round of the search. Results come
 * back in task order whatever finishes first.
 */
import type { Worker } from 'node:worker_threads';
import { ChainpilotError } from '../../core/index.js';
import { siblingModule, startModuleWorker } from '../../runtime/module-worker.js';
import type { Recording } from '../replay/recording-reader.js';
import type { RunTasks } from './search-methods.js';
import { runCell, type CellJob, type CellResult } from './sweep-cell.js';

/** What a sweep worker thread reads: the recording's files and how (through the prepared cache or not). */
export interface SweepWorkerData {
  readonly job: CellJob;
  readonly data: readonly string[];
  readonly cache: boolean;
  readonly cacheDir: string | undefined;
}

export interface TaskRunner {
  readonly run: RunTasks;
  close(): Promise<void>;
}

const failed = (index: number, message: string): ChainpilotError =>
  new ChainpilotError('BACKTEST_CELL_FAILED', `sweep cell ${index} failed: ${message}`, { retry: 'not_retryable', context: { cell: index } });

/** Runs tasks one after the other in this thread; `onResult` sees each as it finishes. */
export function inlineRunner(job: CellJob, recording: Recording, onResult: (r: CellResult) => void): TaskRunner {
  return {
    async run(tasks) {
      const out: CellResult[] = [];
      for (const t of tasks) {
        let r: CellResult;
        try {
          r = await runCell(job, recording, t);
        } catch (e) {
          throw failed(t.cell.index, e instanceof Error ? e.message : String(e));
        }
        out.push(r);
        onResult(r);
      }
      return out;
    },
    close: () => Promise.resolve(),
  };
}

interface Slot {
  readonly worker: Worker;
  busy: boolean;
}

/** `n` worker threads kept for every round; a cell that throws fails the round with BACKTEST_CELL_FAILED. */
export function threadRunner(n: number, init: SweepWorkerData, onResult: (r: CellResult) => void): TaskRunner {
  const entry = siblingModule('sweep-worker', import.meta.url);
  const slots: Slot[] = [];
  return {
    async run(tasks) {
      const out = new Array<CellResult | undefined>(tasks.length);
      let next = 0;
      while (slots.length < Math.min(n, tasks.length)) slots.push({ worker: startModuleWorker(entry, { ...init }), busy: false });
      await new Promise<void>((resolve, reject) => {
        let done = 0;
        if (tasks.length === 0) {
          resolve();
          return;
        }
        const feed = (s: Slot): void => {
          const i = next++;
          if (i >= tasks.length) return;
          s.busy = true;
          const onMessage = (m: { result?: CellResult; error?: { index: number; message: string } }): void => {
            s.worker.off('message', onMessage);
            s.worker.off('error', onError);
            s.busy = false;
            if (m.error) {
              reject(failed(m.error.index, m.error.message));
              return;
            }
            out[i] = m.result!;
            onResult(m.result!);
            if (++done === tasks.length) resolve();
            else feed(s);
          };
          const onError = (e: Error): void => reject(e);
          s.worker.on('message', onMessage);
          s.worker.once('error', onError);
          s.worker.postMessage({ task: tasks[i] });
        };
        for (const s of slots) feed(s);
      });
      return out as CellResult[];
    },
    async close() {
      await Promise.all(slots.map((s) => s.worker.terminate()));
      slots.length = 0;
    },
  };
}
