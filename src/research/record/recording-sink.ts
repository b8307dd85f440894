/**
 * The run's side of a recording: frames and lines are collected as they come (a push each, no
 * copy, no redaction, no formatting) and handed in batches to the recording's writing thread
 * (recording-thread.ts), which builds the lines, redacts them, compresses and writes them. The
 * thread that ingests the feed pays only the hand-over (a structured clone of the batch's strings),
 * so recording stays off the hot path.
 *
 * A batch is handed over once it holds `batchBytes` of text (64 KiB: a hand-over has a fixed cost,
 * so about 150 frames share one), or `HAND_OVER_MS` after its first line, or on `flush()`,
 * `drained()` and `close()`: a crash loses at most those last milliseconds and what the thread had
 * not written yet. The newest frame is never handed over on its own arrival, so the client's "not
 * JSON" verdict on it, which comes right after, can still mark it.
 */
import type { Worker } from 'node:worker_threads';
import { ChainpilotError, type Logger } from '../../core/index.js';
import { siblingModule, startModuleWorker } from '../../runtime/module-worker.js';
import { FRAME, FRAME_NOT_JSON, LINE, type RecordingThreadInit } from './recording-protocol.js';

export interface RecordingSinkOptions extends Omit<RecordingThreadInit, 'recordingThread'> {
  readonly log: Logger;
  /** Hand a batch over once it holds this much text (default 64 KiB). */
  readonly batchBytes?: number;
}

export interface RecordingStats {
  /** Lines recorded so far (written, or on their way to the file). */
  readonly lines: number;
  /** Lines waiting in this thread for the next hand-over. */
  readonly waiting: number;
  /** Bytes (uncompressed) the writing thread has accepted into the file. */
  readonly bytes: number;
  readonly errors: number;
}

export interface RecordingSink {
  /** A frame's raw text, received at `rt` and recorded at run-clock time `t`. */
  frame(text: string, t: number, rt: number): void;
  /** The last frame given turned out not to be JSON: it is stored as a JSON string. */
  lastFrameNotJson(): void;
  /** A finished line (ending in `\n`, already redacted) at run-clock time `t`. */
  line(line: string, t: number): void;
  /** Hands what is waiting to the writing thread now. */
  flush(): void;
  /** Recording files so far, in order (all of them once `close()` resolved). */
  files(): readonly string[];
  stats(): RecordingStats;
  /** Resolves when the writing thread has written everything handed to it so far. */
  drained(): Promise<void>;
  /** Writes what is left, closes the files and ends the thread. */
  close(): Promise<void>;
  /** Ends the thread at once (a stop past its deadline): what it has not written is lost, the last file may be cut short. */
  abort(): Promise<void>;
}

/** A line waits at most this long (wall time) before it is handed to the writing thread. */
export const HAND_OVER_MS = 25;
const DEFAULT_BATCH_BYTES = 64 * 1024;

interface ThreadReport {
  readonly stats: { readonly lines: number; readonly bytes: number; readonly errors: number };
  readonly files: readonly string[];
}

export function createRecordingSink(o: RecordingSinkOptions): RecordingSink {
  const init: RecordingThreadInit = {
    recordingThread: true,
    prefix: o.prefix,
    gzip: o.gzip,
    rotateBytes: o.rotateBytes,
    rotateMs: o.rotateMs,
    header: o.header,
    secrets: o.secrets,
  };
  const worker: Worker = startModuleWorker(siblingModule('recording-thread', import.meta.url), { ...init });
  const batchBytes = o.batchBytes ?? DEFAULT_BATCH_BYTES;
  let texts: string[] = [];
  let meta: number[] = [];
  let waitingBytes = 0;
  let timer: NodeJS.Timeout | undefined;
  let lines = 0;
  let seq = 0;
  let acked = 0;
  let report: ThreadReport = { stats: { lines: 0, bytes: 0, errors: 0 }, files: [] };
  let threadErrors = 0;
  let closed = false;
  const waiters: { seq: number; resolve: () => void }[] = [];
  let onClosed: ((r: ThreadReport) => void) | undefined;

  const failed = (e: unknown): void => {
    threadErrors++;
    if (threadErrors === 1) {
      const err =
        e instanceof ChainpilotError
          ? e
          : new ChainpilotError('RECORDING_WRITE_FAILED', `the recording's writing thread failed: ${e instanceof Error ? e.message : String(e)}`, {
              retry: 'not_retryable',
            });
      o.log.error({ err }, 'recording stopped: write failed');
    }
  };
  const settle = (): void => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i]!.seq <= acked) waiters.splice(i, 1)[0]!.resolve();
    }
  };
  worker.on('message', (m: { ack?: number; closed?: boolean; error?: { code: string; message: string } } & Partial<ThreadReport>) => {
    if (m.error) failed(new ChainpilotError('RECORDING_WRITE_FAILED', m.error.message, { retry: 'not_retryable' }));
    if (m.stats && m.files) report = { stats: m.stats, files: m.files };
    if (m.ack !== undefined) {
      acked = m.ack;
      settle();
    }
    if (m.closed) onClosed?.(report);
  });
  worker.on('error', (e) => {
    failed(e);
    // nothing more will be written: let everyone waiting go
    acked = Number.MAX_SAFE_INTEGER;
    settle();
    onClosed?.(report);
  });

  /** Hands the waiting lines over as one text and their lengths; `ack` asks the thread to say when they are written. */
  // The thread keeps the process alive only while someone waits on it (drained, close): a recorder
  // that a failed start never closed does not hold the process open. (After the listeners: adding
  // a 'message' listener refs the worker's port again.)
  worker.unref();

  const handOver = (ack = false): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (texts.length === 0) {
      if (ack && seq > acked) worker.postMessage({ seq, ack: true });
      return;
    }
    const lens = new Int32Array(texts.length);
    for (let i = 0; i < texts.length; i++) lens[i] = texts[i]!.length;
    const m = new Float64Array(meta);
    worker.postMessage({ seq: ++seq, ack, text: texts.join(''), lens, meta: m }, [lens.buffer, m.buffer]);
    texts = [];
    meta = [];
    waitingBytes = 0;
  };
  const add = (text: string, t: number, rt: number, kind: number): void => {
    if (closed) return;
    // hand over before adding: the newest entry stays here (see lastFrameNotJson)
    if (waitingBytes >= batchBytes) handOver();
    texts.push(text);
    meta.push(t, rt, kind);
    waitingBytes += text.length;
    lines++;
    if (timer === undefined) {
      timer = setTimeout(handOver, HAND_OVER_MS);
      timer.unref();
    }
  };

  return {
    frame: (text, t, rt) => add(text, t, rt, FRAME),
    lastFrameNotJson() {
      const k = meta.length - 1;
      if (k >= 0 && meta[k] === FRAME) meta[k] = FRAME_NOT_JSON;
    },
    line: (line, t) => add(line, t, t, LINE),
    flush: () => handOver(),
    files: () => report.files,
    stats: () => ({ lines, waiting: texts.length, bytes: report.stats.bytes, errors: report.stats.errors + threadErrors }),
    drained() {
      handOver(true);
      if (acked >= seq) return Promise.resolve();
      worker.ref();
      return new Promise<void>((resolve) => waiters.push({ seq, resolve })).finally(() => {
        if (!closed && waiters.length === 0) worker.unref();
      });
    },
    async abort() {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await worker.terminate();
    },
    async close() {
      if (closed) return;
      handOver();
      closed = true;
      const done = new Promise<ThreadReport>((resolve) => (onClosed = resolve));
      worker.ref();
      worker.postMessage({ close: true });
      await done;
      await worker.terminate();
    },
  };
}
