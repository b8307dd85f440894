/**
 * A backtest's decision log out of its entries, encoded a buffer of lines at a time: its sha256 and its file
 * are made without the whole log as one string (4.6 MB for the 24-hour paper-sim recording, plus a
 * UTF-8 copy per hash and per write, every one of them allocated at the run's end, where the
 * process's peak memory is; docs/performance.md, "Peak memory").
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { formatDecision, type DecisionEntry } from '../../engine/logs/decision-log.js';

/** Bytes of the buffer the lines are encoded into (reused: a batch allocates nothing but its lines). */
const BUFFER = 1 << 16;

/**
 * Encodes the log's lines into one reused buffer and hands each full stretch of it to `out` (its
 * bytes valid only during the call); their concatenation is the log's UTF-8. A batch as one string
 * or a fresh buffer of over 128 KiB would be allocated outside the young generation and stay until a
 * full collection: 30 of them added 9 MB to the 24-hour run's peak.
 */
function encodeLog(entries: readonly DecisionEntry[], out: (bytes: Buffer) => void): void {
  const buf = Buffer.allocUnsafe(BUFFER);
  let used = 0;
  for (const e of entries) {
    const line = formatDecision(e);
    // a UTF-16 unit is at most 3 bytes of UTF-8
    if (used + 3 * line.length > BUFFER) {
      if (used > 0) out(buf.subarray(0, used));
      used = 0;
      if (3 * line.length > BUFFER) {
        out(Buffer.from(line, 'utf8'));
        continue;
      }
    }
    used += buf.write(line, used, 'utf8');
  }
  if (used > 0) out(buf.subarray(0, used));
}

/** The decision log as one string, exactly as a paper run writes it (tests and `--verify-against` compare it). */
export function decisionLogText(entries: readonly DecisionEntry[]): string {
  return entries.map(formatDecision).join('');
}

/** sha256 (hex) of the decision log's UTF-8 bytes. */
export function decisionLogSha256(entries: readonly DecisionEntry[]): string {
  const hash = createHash('sha256');
  encodeLog(entries, (bytes) => hash.update(bytes));
  return hash.digest('hex');
}

/** Writes the decision log to `path` (replacing it) and returns its sha256 (hex), one pass over the entries. */
export function writeDecisionLog(entries: readonly DecisionEntry[], path: string): string {
  const hash = createHash('sha256');
  const fd = openSync(path, 'w');
  try {
    encodeLog(entries, (bytes) => {
      hash.update(bytes);
      for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off);
    });
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}
