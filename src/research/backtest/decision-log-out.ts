/**
 * A backtest's decision log out of its entries, a batch of lines at a time: its sha256 and its file
 * are made without the whole log as one string (4.6 MB for the 24-hour paper-sim recording, plus a
 * UTF-8 copy per hash and per write, every one of them allocated at the run's end, where the
 * process's peak memory is; docs/performance.md, "Peak memory").
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { formatDecision, type DecisionEntry } from '../../engine/logs/decision-log.js';

/** Lines per batch: about 150 KB of text on the shipped deployment. */
const BATCH = 512;

/** The log's lines, `BATCH` of them joined at a time (their concatenation is the log). */
function* batches(entries: readonly DecisionEntry[]): Generator<string> {
  for (let i = 0; i < entries.length; i += BATCH) {
    let text = '';
    const end = Math.min(entries.length, i + BATCH);
    for (let j = i; j < end; j++) text += formatDecision(entries[j]!);
    yield text;
  }
}

/** The decision log as one string, exactly as a paper run writes it (tests and `--verify-against` compare it). */
export function decisionLogText(entries: readonly DecisionEntry[]): string {
  return entries.map(formatDecision).join('');
}

/** sha256 (hex) of the decision log's UTF-8 bytes. */
export function decisionLogSha256(entries: readonly DecisionEntry[]): string {
  const hash = createHash('sha256');
  for (const text of batches(entries)) hash.update(text, 'utf8');
  return hash.digest('hex');
}

/** Writes the decision log to `path` (replacing it) and returns its sha256 (hex), one pass over the entries. */
export function writeDecisionLog(entries: readonly DecisionEntry[], path: string): string {
  const hash = createHash('sha256');
  const fd = openSync(path, 'w');
  try {
    for (const text of batches(entries)) {
      const bytes = Buffer.from(text, 'utf8');
      hash.update(bytes);
      for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off);
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}
