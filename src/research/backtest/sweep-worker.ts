/**
 * A sweep worker thread (sweep-pool.ts): opens the recording from the shared memory the sweep sends
 * once (no file read, no hash), then for each round takes tasks from the round's shared counter,
 * as the main thread does, and posts each result back. Its modules and the code V8 compiles for
 * them stay for every cell it runs.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Recording } from '../replay/recording-reader.js';
import { runLane, type FromWorker, type SweepWorkerData, type ToWorker } from './sweep-pool.js';
import { openSharedRecording } from './sweep-shared.js';

const { job } = workerData as SweepWorkerData;
const port = parentPort!;
const post = (m: FromWorker): void => port.postMessage(m);
let recording: Recording | undefined;
// Rounds arrive one at a time (the sweep waits for a round before it sends the next).
port.on('message', (m: ToWorker) => {
  if (m.kind === 'recording') {
    recording = openSharedRecording(m.shared);
    post({ kind: 'ready' });
    return;
  }
  const { round, tasks, next } = m;
  void runLane(
    job,
    recording!,
    tasks,
    next,
    (i, result) => post({ kind: 'result', round, i, result }),
    (i, message) => post({ kind: 'failed', round, i, message }),
    // (a result that cannot be posted rejects: unhandled, it ends this thread and the sweep reports it)
  ).finally(() => post({ kind: 'idle', round }));
});
