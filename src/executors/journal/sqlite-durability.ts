/**
 * How much of the SQLite journal is fsynced, and when (the safety argument is in
 * docs/executor.md, "Durability"). The journal runs in WAL mode, a log: after a power loss SQLite
 * recovers a prefix of the committed transactions, and one fsync of the log makes every commit
 * before it durable too. So only the write that must be on disk before something leaves the
 * process is fsynced: the signed attempt (signature, bytes, expiry), written before its first
 * send. Every other commit becomes durable at the latest with the next one of those, and a lost
 * one is re-derived from the chain at start-up. Between a decision and its first send the live
 * path therefore makes two commits (create, recordSigned) and one fsync (recordSigned's, which
 * also makes the create durable): docs/executor.md, "One fsync before a send".
 *
 * That fsync is an `fdatasync` of the log file, issued here after the write committed at NORMAL
 * (its frames in the page cache), not SQLite's own FULL commit: the SQLite that better-sqlite3
 * builds syncs with `fsync`, which also journals the log's modification time (changed by every
 * write) on a journaling file system such as ext4, a journal commit per durable write. What FULL
 * adds to NORMAL in WAL mode is exactly one sync of the log after the commit's frames (the
 * header of a restarted log is synced with them here, in the same call, instead of just before
 * them: the write counts as durable only once the call returned, so the order within it does not
 * matter); `fdatasync` makes the same bytes and the size they need durable.
 */
import { closeSync, fdatasyncSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { ChainpilotError } from '../../core/errors.js';

/**
 * `critical` (default): fsync only the signed-attempt write; `full`: fsync every state change;
 * `normal`: fsync none (survives process crashes, not power loss).
 */
export type JournalSynchronous = 'critical' | 'full' | 'normal';

export interface SqliteDurability {
  /** Runs `write` (one SQLite transaction) so that it is on disk when it returns. */
  durable<T>(write: () => T): T;
  /** Runs any other write (one SQLite transaction): fsynced only in `full` mode. */
  relaxed<T>(write: () => T): T;
  /**
   * Writes that returned only once their commit was on disk (a write that changed nothing is
   * counted too, though there was then nothing to sync): what "one fsync between a decision and
   * its send" is tested on.
   */
  syncedWrites(): number;
  /** Closes the log file this opened for its syncs (after the database is closed). */
  close(): void;
}

/** How a synced file is flushed: `fdatasync` (a test passes a spy). */
export type SyncFile = (fd: number) => void;

/**
 * Sets the connection's base `synchronous` level and returns the wrappers the journal's writes run
 * in. In `critical` mode on a database in WAL mode the durable writes sync its log file
 * (`${db.name}-wal`, resolved now: a later change of directory does not move it); on any other
 * database they commit at FULL.
 */
export function applyDurability(db: Database.Database, mode: JournalSynchronous = 'critical', syncFile: SyncFile = fdatasyncSync): SqliteDurability {
  db.pragma(`synchronous = ${mode === 'full' ? 'FULL' : 'NORMAL'}`);
  let synced = 0;
  const counted = <T>(write: () => T): T => {
    const r = write();
    synced++;
    return r;
  };
  const plain = <T>(write: () => T): T => write();
  const none = (): void => undefined;
  if (mode === 'normal') return { durable: plain, relaxed: plain, syncedWrites: () => synced, close: none };
  if (mode === 'full') return { durable: counted, relaxed: counted, syncedWrites: () => synced, close: none };
  if (String(db.pragma('journal_mode', { simple: true })) !== 'wal') {
    // no log file to sync (a database that cannot be in WAL mode): SQLite's own FULL commit
    // (db.pragma each time: SQLite applies this pragma when it compiles the statement)
    return {
      durable(write) {
        db.pragma('synchronous = FULL');
        try {
          return counted(write);
        } finally {
          db.pragma('synchronous = NORMAL');
        }
      },
      relaxed: plain,
      syncedWrites: () => synced,
      close: none,
    };
  }
  /**
   * The log file, opened at the first durable write (a committed write in WAL mode has created it).
   * SQLite keeps that file, the same inode, while any connection to the database is open: it
   * rewrites it from the start after a checkpoint, cuts it back (journal_size_limit) and deletes it
   * only when the last connection closes.
   */
  const logPath = `${resolve(db.name)}-wal`;
  let logFd: number | undefined;
  /**
   * Set when a sync failed. That write is committed (readable) but not known to be on disk, and a
   * later sync's success would not prove it is (Linux reports a failed writeback once): so no
   * write is taken after it, and an intent it signed is never sent by this process.
   */
  let failed: ChainpilotError | undefined;
  const refuseAfterFailure = (): void => {
    if (failed) throw failed;
  };
  return {
    durable(write) {
      refuseAfterFailure();
      const r = write();
      try {
        logFd ??= openSync(logPath, 'r');
        syncFile(logFd);
      } catch (e) {
        failed = new ChainpilotError(
          'JOURNAL_SYNC_FAILED',
          `the journal's log ${logPath} could not be flushed to disk (${e instanceof Error ? e.message : String(e)}); this journal takes no further write: restart on healthy storage`,
          { retry: 'fatal', context: { path: logPath } },
        );
        throw failed;
      }
      synced++;
      return r;
    },
    relaxed(write) {
      refuseAfterFailure();
      return write();
    },
    syncedWrites: () => synced,
    close() {
      if (logFd !== undefined) closeSync(logFd);
      logFd = undefined;
    },
  };
}
