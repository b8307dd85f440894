// Boots a sweep worker thread: registers tsx (the sources are TypeScript) unless the worker module
// is already built JavaScript, then loads it. workerData.entry is the worker module's URL.
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
