/**
 * A bounded, sequenced log of what the daemon's deployments reported: every entry gets the next
 * sequence number of this daemon run. The control API pages through it (`after`, `limit`) and the
 * dashboard's Server-Sent Events resume from it (`Last-Event-ID`). Memory is bounded: the oldest
 * entries fall off once `capacity` is reached, and a reader that asks for a sequence that fell
 * off is told so (`truncated`), never given a silent gap.
 */
import { ChainpilotError } from '../core/index.js';

export interface LoggedEntry<T> {
  /** 1-based, strictly increasing within one daemon run. */
  readonly seq: number;
  readonly deployment: string;
  readonly value: T;
}

export interface EventPage<T> {
  readonly entries: readonly LoggedEntry<T>[];
  /** Sequence to pass as `after` for the next page (the last entry's, or `after` when empty). */
  readonly next: number;
  /** True when entries after `after` were dropped before they could be read. */
  readonly truncated: boolean;
}

export interface EventLog<T> {
  append(deployment: string, value: T): LoggedEntry<T>;
  /** Entries with `seq > after`, oldest first, at most `limit`, optionally for one deployment and matching `filter`. */
  page(o: { readonly after: number; readonly limit: number; readonly deployment?: string; readonly filter?: (value: T) => boolean }): EventPage<T>;
  /** Newest entries first (for "recent" tables), at most `limit`. */
  recent(o: { readonly limit: number; readonly deployment?: string; readonly filter?: (value: T) => boolean }): LoggedEntry<T>[];
  /** Calls `listener` for every appended entry; returns the unsubscribe. */
  subscribe(listener: (entry: LoggedEntry<T>) => void): () => void;
  /** The last sequence number given out (0 before the first). */
  readonly lastSeq: number;
  readonly size: number;
}

/** Creates an empty log holding at most `capacity` entries. */
export function createEventLog<T>(capacity: number, onListenerError: (error: unknown) => void): EventLog<T> {
  if (!Number.isSafeInteger(capacity) || capacity < 1)
    throw new ChainpilotError('CORE_INVALID_ARGUMENT', `event log capacity must be a positive integer, got ${capacity}`, { retry: 'not_retryable' });
  const ring: (LoggedEntry<T> | undefined)[] = new Array<LoggedEntry<T> | undefined>(capacity);
  let seq = 0;
  let count = 0;
  const listeners = new Set<(entry: LoggedEntry<T>) => void>();
  const at = (s: number): LoggedEntry<T> | undefined => ring[(s - 1) % capacity];
  const firstSeq = (): number => seq - count + 1;

  return {
    append(deployment, value) {
      seq += 1;
      const entry: LoggedEntry<T> = { seq, deployment, value };
      ring[(seq - 1) % capacity] = entry;
      if (count < capacity) count += 1;
      for (const l of listeners) {
        try {
          l(entry);
        } catch (e) {
          onListenerError(e);
        }
      }
      return entry;
    },
    page({ after, limit, deployment, filter }) {
      const from = Math.max(after + 1, firstSeq());
      const truncated = count > 0 && after + 1 < firstSeq();
      const entries: LoggedEntry<T>[] = [];
      let last = after;
      for (let s = from; s <= seq && entries.length < limit; s++) {
        const e = at(s);
        last = s;
        if (!e || (deployment !== undefined && e.deployment !== deployment) || (filter && !filter(e.value))) continue;
        entries.push(e);
      }
      return { entries, next: Math.max(after, last), truncated };
    },
    recent({ limit, deployment, filter }) {
      const out: LoggedEntry<T>[] = [];
      for (let s = seq; s >= firstSeq() && out.length < limit; s--) {
        const e = at(s);
        if (!e || (deployment !== undefined && e.deployment !== deployment) || (filter && !filter(e.value))) continue;
        out.push(e);
      }
      return out;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get lastSeq() {
      return seq;
    },
    get size() {
      return count;
    },
  };
}
