/**
 * The recording's writing thread (a worker started by recording-sink.ts): it turns the batches the
 * run's thread hands over into recording lines (redacting every frame and writing it out verbatim
 * when it is one line of JSON), and writes them through the rotating gzip writer. All of that costs
 * several times a frame's `JSON.parse`, so the thread that ingests the feed never does it.
 *
 * Messages in: `{ seq, ack, text, lens, meta }` (a batch: its entries joined into one text, their
 * lengths, and `t, rt, kind` per entry; kind 0 a frame, 1 a frame that is not JSON, 2 a finished
 * line), then `{ close: true }`. Messages out: `{ ack: seq, stats, files }` once the batches up to
 * `seq` are accepted by the file (when the batch asked for it), `{ error }` on the first write
 * error (the run's thread logs it), `{ closed, stats, files }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createRedactor, silentLogger } from '../../core/index.js';
import { frameLine, looksEmbeddable } from '../replay/recording-format.js';
import { createRecordingWriter } from '../replay/recording-writer.js';
import { FRAME, LINE, type RecordingThreadInit } from './recording-protocol.js';

const port = parentPort;
const init = workerData as RecordingThreadInit | undefined;
if (port && init?.recordingThread === true) {
  const redactor = createRedactor(init.secrets);
  const writer = createRecordingWriter({
    prefix: init.prefix,
    gzip: init.gzip,
    ...(init.rotateBytes !== undefined ? { rotateBytes: init.rotateBytes } : {}),
    ...(init.rotateMs !== undefined ? { rotateMs: init.rotateMs } : {}),
    header: (part, at) => {
      const { source, seed, ...head } = init.header;
      // the key order of every recording's header: k ... startedAt, part, partStartedAt, source, seed
      return redactor.redactValue({ ...head, part, partStartedAt: at, source, ...(seed !== undefined ? { seed } : {}) });
    },
    log: silentLogger(),
    onError: (e) => port.postMessage({ error: { code: e.code, message: e.message } }),
  });
  const report = (): { stats: ReturnType<typeof writer.stats>; files: readonly string[] } => ({ stats: writer.stats(), files: writer.files() });
  port.on('message', (m: { seq?: number; ack?: boolean; text?: string; lens?: Int32Array; meta?: Float64Array; close?: boolean }) => {
    if (m.close) {
      void writer.close().then(() => port.postMessage({ closed: true, ...report() }));
      return;
    }
    const { text, lens, meta } = m;
    if (text !== undefined && lens && meta) {
      for (let i = 0, at = 0; i < lens.length; at += lens[i]!, i++) {
        const t = meta[i * 3]!;
        const kind = meta[i * 3 + 2];
        const entry = text.slice(at, at + lens[i]!);
        if (kind === LINE) {
          writer.write(entry, t);
          continue;
        }
        const frame = redactor.redact(entry);
        writer.write(frameLine(t, meta[i * 3 + 1], frame, kind === FRAME && looksEmbeddable(frame)), t);
      }
    }
    if (m.ack) void writer.drained().then(() => port.postMessage({ ack: m.seq, ...report() }));
  });
}
