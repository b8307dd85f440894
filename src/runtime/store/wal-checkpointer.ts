/**
 * WAL checkpoints of paper stores off the main thread. A paper store commits its book once per
 * event-loop turn at `synchronous = NORMAL` (docs/daemon.md, "Paper books: what a crash may lose");
 * SQLite's automatic checkpoint then runs inside one of those commits every 1,000 WAL pages and
 * syncs the WAL and the database there, on the main thread: at a hundred paper deployments on a
 * busy disk those syncs held the event loop for tens to hundreds of ms. So a paper store moves the
 * automatic checkpoint to 10,000 pages (a backstop, as the live journal does) and asks for one here
 * every {@link CHECKPOINT_EVERY_COMMITS} commits; one worker thread per process (started on first use,
 * unreferenced: it never keeps the process alive) runs them on its own connection.
 *
 * What a crash may lose does not change: a commit is in the WAL when its transaction ends, as
 * before; the WAL is synced at checkpoints, as before, only in another thread. A store closed
 * normally is checkpointed by SQLite when its last connection closes.
 */
import type { Worker } from 'node:worker_threads';
import { describeError } from '../../core/index.js';
import { siblingModule, startModuleWorker } from '../module-worker.js';

/** Commits of a paper store between two checkpoint requests (a book commit writes a few pages: well under SQLite's 1,000). */
export const CHECKPOINT_EVERY_COMMITS = 100;

export interface WalCheckpointStats {
  readonly requested: number;
  readonly done: number;
  readonly failed: number;
  /** The last failure (`path: reason`), if any: a failed checkpoint is retried at the next request. */
  readonly lastError: string | undefined;
}

let worker: Worker | undefined;
/** Paths asked for and not yet answered: a second request for one waits behind the first. */
const pending = new Set<string>();
let requested = 0;
let done = 0;
let failed = 0;
let lastError: string | undefined;

const start = (): Worker => {
  const w = startModuleWorker(siblingModule('wal-checkpoint-worker', import.meta.url), {});
  w.on('message', (m: { path: string; ok: boolean; error?: string }) => {
    pending.delete(m.path);
    if (m.ok) done++;
    else {
      failed++;
      lastError = `${m.path}: ${m.error ?? 'failed'}`;
    }
  });
  const gone = (e?: unknown): void => {
    if (worker === w) worker = undefined; // the next request starts another
    failed += pending.size;
    if (e !== undefined) lastError = `the WAL checkpoint worker failed: ${describeError(e)}`;
    pending.clear();
  };
  w.on('error', gone);
  w.on('exit', () => gone());
  w.unref(); // after the listeners: adding a 'message' listener refs the worker again
  return w;
};

/** Asks the worker to checkpoint the SQLite file at `path` (once at a time per path). */
export function requestWalCheckpoint(path: string): void {
  if (pending.has(path)) return;
  worker ??= start();
  pending.add(path);
  requested++;
  worker.postMessage({ path });
}

/** Counters of the requests made in this process (tests, status). */
export function walCheckpointStats(): WalCheckpointStats {
  return { requested, done, failed, lastError };
}
