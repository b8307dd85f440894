/**
 * Writes a recording: JSON Lines, gzip by default, a header line at the top of every file, rotated
 * to a new part when a part reaches `rotateBytes` (uncompressed) or spans `rotateMs` of the run
 * clock. Lines are buffered and handed to the file off the hot path (one write per event-loop turn
 * or per 256 KiB); a write error is logged once and counted, never thrown into the feed.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { createGzip, type Gzip } from 'node:zlib';
import { ChainpilotError, type Logger } from '../../core/index.js';
import type { RecordingHeader } from './recording-format.js';

export interface RecordingWriterOptions {
  /** Path without the part suffix, e.g. `recordings/paper-sim-20260101T000000Z`. */
  readonly prefix: string;
  readonly gzip: boolean;
  /** New part after this many uncompressed bytes (default 256 MiB). */
  readonly rotateBytes?: number;
  /** New part after this much run-clock time (default 1 day). */
  readonly rotateMs?: number;
  /** Header of part `part`, started at run-clock time `at`. */
  readonly header: (part: number, at: number) => RecordingHeader;
  readonly log: Logger;
  /** Called with the first write error instead of logging it (a writer on a worker thread reports to the run's thread). */
  readonly onError?: (error: ChainpilotError) => void;
}

export interface RecordingWriter {
  /** Appends one line (ending in `\n`) recorded at run-clock time `t`. */
  write(line: string, t: number): void;
  /** Files written so far (parts), in order. */
  files(): readonly string[];
  /** Lines written, bytes (uncompressed) and write errors. */
  stats(): { readonly lines: number; readonly bytes: number; readonly errors: number };
  /** Resolves when everything handed to the file so far has been accepted by it (backpressure). */
  drained(): Promise<void>;
  /** Flushes and closes the current part. */
  close(): Promise<void>;
}

const FLUSH_BYTES = 256 * 1024;

export function createRecordingWriter(o: RecordingWriterOptions): RecordingWriter {
  const rotateBytes = o.rotateBytes ?? 256 * 1024 * 1024;
  const rotateMs = o.rotateMs ?? 86_400_000;
  const files: string[] = [];
  let part = -1;
  let partStartedAt = 0;
  let partBytes = 0;
  let file: WriteStream | undefined;
  let gz: Gzip | undefined;
  let pending: string[] = [];
  let pendingBytes = 0;
  let scheduled = false;
  let lines = 0;
  let bytes = 0;
  let errors = 0;
  let closed = false;
  const closing: Promise<void>[] = [];

  const fail = (e: unknown): void => {
    errors++;
    if (errors !== 1) return;
    const err = new ChainpilotError(
      'RECORDING_WRITE_FAILED',
      `cannot write the recording ${files[files.length - 1] ?? o.prefix}: ${e instanceof Error ? e.message : String(e)}`,
      { retry: 'not_retryable' },
    );
    if (o.onError) o.onError(err);
    else o.log.error({ err }, 'recording stopped: write failed');
  };

  const sink = (): Gzip | WriteStream | undefined => gz ?? file;

  const flush = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const chunk = pending.join('');
    pending = [];
    pendingBytes = 0;
    if (errors > 0) return;
    sink()?.write(chunk);
  };

  const endPart = (): void => {
    flush();
    const f = file;
    const z = gz;
    file = undefined;
    gz = undefined;
    if (!f) return;
    closing.push(
      new Promise<void>((resolve) => {
        f.once('close', () => resolve());
        f.once('error', () => resolve());
        if (z) z.end();
        else f.end();
      }),
    );
  };

  const openPart = (at: number): void => {
    part++;
    partStartedAt = at;
    partBytes = 0;
    const path = `${o.prefix}.${String(part).padStart(4, '0')}.jsonl${o.gzip ? '.gz' : ''}`;
    files.push(path);
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (e) {
      fail(e);
      return;
    }
    file = createWriteStream(path);
    file.on('error', fail);
    if (o.gzip) {
      gz = createGzip({ level: 1 }); // fast: the recorder competes with ingest for the CPU
      gz.on('error', fail);
      gz.pipe(file);
    }
    const header = `${JSON.stringify(o.header(part, at))}\n`;
    pending.push(header);
    pendingBytes += header.length;
    partBytes += header.length;
  };

  const w: RecordingWriter = {
    write(line, t) {
      if (closed) return;
      if (part < 0) openPart(t);
      else if (partBytes >= rotateBytes || t - partStartedAt >= rotateMs) {
        endPart();
        openPart(t);
      }
      if (pendingBytes >= FLUSH_BYTES) flush();
      pending.push(line);
      pendingBytes += line.length;
      partBytes += line.length;
      bytes += line.length;
      lines++;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    files: () => files,
    stats: () => ({ lines, bytes, errors }),
    drained() {
      flush();
      const s = sink();
      if (!s || !s.writableNeedDrain) return Promise.resolve();
      return new Promise((resolve) => s.once('drain', () => resolve()));
    },
    async close() {
      if (closed) return;
      closed = true;
      endPart();
      await Promise.all(closing);
    },
  };
  return w;
}
