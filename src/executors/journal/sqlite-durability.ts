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
 */
import type Database from 'better-sqlite3';

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
   * Writes that returned while the connection was at `synchronous = FULL`, i.e. whose commit
   * waited for an fsync of the log (a write that changed nothing is counted too, though SQLite
   * then had nothing to sync): what "one fsync between a decision and its send" is tested on.
   */
  syncedWrites(): number;
}

/** Sets the connection's base `synchronous` level and returns the wrappers the journal's writes run in. */
export function applyDurability(db: Database.Database, mode: JournalSynchronous = 'critical'): SqliteDurability {
  db.pragma(`synchronous = ${mode === 'full' ? 'FULL' : 'NORMAL'}`);
  let synced = 0;
  const counted = <T>(write: () => T): T => {
    const r = write();
    synced++;
    return r;
  };
  const plain = <T>(write: () => T): T => write();
  if (mode === 'normal') return { durable: plain, relaxed: plain, syncedWrites: () => synced };
  if (mode === 'full') return { durable: counted, relaxed: counted, syncedWrites: () => synced };
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
  };
}
