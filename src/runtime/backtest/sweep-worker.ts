/**
 * A sweep worker thread: reads the recording once, then runs every cell it is sent and posts each
 * result back. Messages: `{ cell }` to run one, `{ done: true }` to exit.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readRecording } from '../../replay/recording-reader.js';
import { runCell, type CellJob } from './sweep-cell.js';
import type { SweepCell } from './sweep-grid.js';

interface Init { readonly job: CellJob; readonly data: readonly string[] }

const init = workerData as Init & { entry: string };
const recording = readRecording(init.data);
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
