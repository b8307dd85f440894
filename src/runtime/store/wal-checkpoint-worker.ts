/**
 * Entry of the WAL checkpoint worker thread (wal-checkpointer.ts): for each path it is sent, opens
 * its own connection to that SQLite file, runs a PASSIVE checkpoint (copies the WAL into the
 * database and syncs both, without waiting for any lock the writer holds) and closes it.
 *
 * Messages in: `{ path }`. Out: `{ path, ok: true }` or `{ path, ok: false, error }`.
 */
import Database from 'better-sqlite3';
import { parentPort } from 'node:worker_threads';
import { describeError } from '../../core/index.js';

// imported outside a worker thread (by mistake) it does nothing
const port = parentPort;
port?.on('message', (m: { readonly path: string }) => {
  try {
    const db = new Database(m.path, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 0');
      db.pragma('wal_checkpoint(PASSIVE)');
    } finally {
      db.close();
    }
    port.postMessage({ path: m.path, ok: true });
  } catch (e) {
    port.postMessage({ path: m.path, ok: false, error: describeError(e) });
  }
});
