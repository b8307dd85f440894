/**
 * A sweep worker thread: reads the recording once (from its prepared cache, which the sweep built
 * before starting the workers), then runs every task it is sent and posts each result back.
 * Messages: `{ task }` to run one.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadRecording } from './backtest-job.js';
import { runCell, type CellTask } from './sweep-cell.js';
import type { SweepWorkerData } from './sweep-pool.js';

const init = workerData as SweepWorkerData & { entry: string };
const { recording } = loadRecording(init.data, init.cache, init.cacheDir);
const port = parentPort!;
port.on('message', (m: { task?: CellTask }) => {
  const task = m.task;
  if (!task) return;
  runCell(init.job, recording, task).then(
    (result) => port.postMessage({ result }),
    (e: unknown) => port.postMessage({ error: { index: task.cell.index, message: e instanceof Error ? e.message : String(e) } }),
  );
});
