/**
 * A sweep worker thread: reads the recording once (from its prepared cache, which the sweep built
 * before starting the workers), then runs every cell it is sent and posts each
 * result back. Messages: `{ cell }` to run one, `{ done: true }` to exit.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadRecording } from './backtest-job.js';
import type { SweepWorkerData } from './run-sweep.js';
import { runCell } from './sweep-cell.js';
import type { SweepCell } from './sweep-grid.js';

const init = workerData as SweepWorkerData & { entry: string };
const { recording } = loadRecording(init.data, init.cache, init.cacheDir);
const port = parentPort!;
port.on('message', (m: { cell?: SweepCell; done?: boolean }) => {
  if (m.done) {
    port.close();
    return;
  }
  if (!m.cell) return;
  runCell(init.job, recording, m.cell).then(
    (result) => port.postMessage({ result }),
    (e: unknown) => port.postMessage({ error: { index: m.cell?.index, message: e instanceof Error ? e.message : String(e) } }),
  );
});
port.postMessage({ ready: true });
