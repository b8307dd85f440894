/**
 * How much of the SQLite journal is fsynced, and when (the safety argument is in
 * docs/executor.md, "Durability"). The journal runs in WAL mode, a log: after a power loss SQLite
 * recovers a prefix of the committed transactions, and one fsync of the log makes every commit
 * before it durable too. So only the write that must be on disk before something leaves the
 * process is fsynced: the signed attempt (signature, bytes, expiry), written before its first
 * send. Every other commit becomes durable at the latest with the next one of those, and a lost
 * one is re-derived from the chain at start-up.
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
}

/** Sets the connection's base `synchronous` level and returns the wrapper for critical writes. */
export function applyDurability(db: Database.Database, mode: JournalSynchronous = 'critical'): SqliteDurability {
  db.pragma(`synchronous = ${mode === 'full' ? 'FULL' : 'NORMAL'}`);
  if (mode !== 'critical') return { durable: (write) => write() };
  return {
    durable(write) {
      db.pragma('synchronous = FULL');
      try {
        return write();
      } finally {
        db.pragma('synchronous = NORMAL');
      }
    },
  };
}
