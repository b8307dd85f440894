/**
 * The recorder of a run: what the Datastream delivered (each frame's raw text as received, with its
 * receive time on the run clock), the client's connection events and gaps, and every `ctx.data`
 * answer, written through a rotating JSONL writer. Paper, live and `chainpilot record` runs create
 * one with `createRecorder` and wire three taps: the client's `onRawFrame` hook, `watch(client)`
 * and `data(port)`. Secrets registered in the run's redactor never reach the file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DatastreamClient } from '../../client/datastream/index.js';
import { createLifecycle, lifecycleMembers, systemClock, type Clock, type Lifecycle, type Logger, type Redactor, type UnixMs } from '../../core/index.js';
import type { RecordingReport } from '../../runtime/compose/recording-port.js';
import type { DataPort } from '../../engine/strategy/data-lookup.js';
import type { ManualDecision } from '../../engine/logs/decision-log.js';
import type { ControlMark } from '../../engine/logs/control-mark.js';
import { RECORDING_FORMAT } from '../replay/recording-format.js';
import { createRecordingSink, type RecordingSink } from './recording-sink.js';
import { chainpilotVersion } from './version.js';

export interface RecorderOptions {
  /** Directory of the recording files. */
  readonly dir: string;
  /** Name of what is recorded (a deployment's name, or `rooms`): the file prefix and the header's `source`. */
  readonly source: string;
  readonly clock: Clock;
  readonly clockKind: 'wall' | 'simulator';
  readonly rooms: readonly string[];
  /** Endpoint names without keys (`{ datastream: 'simulator' }` or host names). */
  readonly endpoints: Readonly<Record<string, string>>;
  readonly gzip?: boolean;
  readonly rotateBytes?: number;
  readonly rotateMs?: number;
  readonly redactor: Redactor;
  readonly log: Logger;
  /** Seed of the run's engine, written to the header. */
  readonly seed?: number;
  /**
   * Hand lines to the writing thread in batches of about this many bytes (default 64 KiB; see
   * recording-sink.ts: a batch also goes after 25 ms, or on `flush()`, `end()` or `stop()`).
   */
  readonly batchBytes?: number;
  /**
   * Never reuse the file names of an earlier recording in `dir` (a daemon deployment restarted within
   * the same second of its clock): the prefix gets `-2`, `-3`... Off for `record --sim`, where the
   * same run into the same directory writes the same files.
   */
  readonly unique?: boolean;
  /**
   * The clock a stop's deadline runs on (default: the system clock). Not the run clock: the
   * deadline bounds the writing thread's I/O, and a run clock at `--speed max` can pass 30 s of
   * simulated time while the thread writes a second's backlog. Tests pass a manual clock.
   */
  readonly deadlineClock?: Clock;
}

/** Default deadline of a recorder's stop: time for the writing thread to catch up (ms). */
export const RECORDER_DRAIN_MS = 30_000;

/**
 * A {@link Lifecycle}: `start` writes the start line (call right before the engine starts);
 * `stop({ drainMs })` writes the end line if `end` has not, waits at most `drainMs` (default
 * {@link RECORDER_DRAIN_MS}, wall time: see `deadlineClock`) for the writing thread to write everything handed
 * to it, then closes the files, or past the deadline ends the thread at once (the report says
 * `complete: false`).
 */
export interface Recorder extends Lifecycle<RecordingReport> {
  /** Path prefix of the recording's files (`DIR/SOURCE-TIME`): `PREFIX.0000.jsonl.gz`, and `PREFIX.decisions.jsonl` for `record`'s decision log. */
  readonly prefix: string;
  /** The Datastream client's `onRawFrame` option. */
  readonly onRawFrame: (text: string, receivedAt: UnixMs) => void;
  /** Instead of `onRawFrame` for a frame left out of this recording (a shared connection's frame of another holder's room). */
  skipFrame(): void;
  /** Records `client`'s connection events and gaps (and fixes up frames it finds not to be JSON). */
  watch(client: Pick<DatastreamClient, 'onEvent'>): () => void;
  /** Wraps the run's `ctx.data` port so that every answer is recorded. */
  data(port: DataPort): DataPort;
  /** Writes a stop mark: `stop` when the run's stop begins (no new intents), `drained` when its drain ended. */
  mark(kind: 'stop' | 'drained'): void;
  /** Writes an operator's manual decision: `{"k":"manual","t":T,"m":ENTRY}` (see recording-format.ts). */
  manual(entry: ManualDecision): void;
  /** Writes a change of what the run admits: `{"k":"ctl","t":T,"c":MARK}` (see recording-format.ts). */
  control(mark: ControlMark): void;
  /** Writes the end line (call when the run stops, before the engine drains). */
  end(): void;
  /** Hands the lines of a partial batch to the writing thread (see `batchBytes`). */
  flush(): void;
  /** Files, counts and backpressure of the recording (written on its own thread: recording-sink.ts). */
  readonly writer: Pick<RecordingSink, 'files' | 'stats' | 'drained'>;
}

/** `paper-sim-20260101T000000Z` for a source and a run-clock time. */
export function recordingPrefix(source: string, at: number): string {
  const iso = new Date(at)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${source.replace(/[^A-Za-z0-9_-]/g, '_')}-${iso}`;
}

/** Host names of URLs, without credentials, paths or queries (which may carry a key). */
export function endpointNames(urls: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, u] of Object.entries(urls)) {
    if (!u) continue;
    try {
      out[name] = new URL(u).host;
    } catch {
      out[name] = '(invalid url)';
    }
  }
  return out;
}

export function createRecorder(o: RecorderOptions): Recorder {
  const startedAt = o.clock.now() as number;
  const gzip = o.gzip ?? true;
  const base = join(o.dir, recordingPrefix(o.source, startedAt));
  let prefix = base;
  if (o.unique) for (let n = 2; existsSync(`${prefix}.0000.jsonl${gzip ? '.gz' : ''}`); n++) prefix = `${base}-${n}`;
  const { redactor } = o;
  const sink = createRecordingSink({
    prefix,
    gzip,
    rotateBytes: o.rotateBytes,
    rotateMs: o.rotateMs,
    header: {
      k: 'header',
      format: RECORDING_FORMAT,
      chainpilot: chainpilotVersion(),
      rooms: [...o.rooms],
      endpoints: { ...o.endpoints },
      clock: o.clockKind,
      startedAt,
      source: o.source,
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
    },
    secrets: redactor.secrets(),
    log: o.log,
    ...(o.batchBytes !== undefined ? { batchBytes: o.batchBytes } : {}),
  });
  const put = (line: string, t: number): void => sink.line(line, t);
  const flush = (): void => sink.flush();
  let ended = false;
  /** Whether the newest frame the client handled went into this recording (a "not JSON" verdict then marks it). */
  let lastFrameHere = false;

  const end = (): void => {
    if (ended) return;
    const t = o.clock.now() as number;
    put(`${JSON.stringify({ k: 'end', t })}\n`, t);
    flush();
    ended = true;
  };
  let caughtUp = false;
  const life = createLifecycle(
    {
      name: `recorder ${o.source}`,
      start: () => {
        const t = o.clock.now() as number;
        put(`${JSON.stringify({ k: 'start', t })}\n`, t);
        return Promise.resolve();
      },
      drain: async () => {
        end();
        await sink.drained();
        caughtUp = true;
      },
      halt: async () => {
        end();
        if (caughtUp) await sink.close();
        else {
          o.log.warn(
            { prefix, waiting: sink.stats().waiting },
            'recording: the stop passed its deadline before the writing thread caught up; the last file may be cut short',
          );
          await sink.abort();
        }
      },
      report: () => {
        const st = sink.stats();
        return { prefix, files: sink.files(), lines: st.lines, errors: st.errors, complete: caughtUp };
      },
    },
    { log: o.log, clock: o.deadlineClock ?? systemClock(), defaultDrainMs: RECORDER_DRAIN_MS },
  );

  const onRawFrame = (raw: string, receivedAt: UnixMs): void => {
    if (ended) return;
    lastFrameHere = true;
    sink.frame(raw, o.clock.now(), receivedAt);
  };

  return {
    ...lifecycleMembers(life),
    prefix,
    onRawFrame,
    skipFrame() {
      // A `malformed` event now refers to the skipped frame, not to the last one written.
      lastFrameHere = false;
    },
    writer: sink,
    watch(client) {
      return client.onEvent((e) => {
        if (ended) return;
        const t = o.clock.now() as number;
        switch (e.kind) {
          case 'malformed':
            // The client found the frame just recorded not to be JSON: store it as a string instead.
            if (e.reason === 'not JSON' && lastFrameHere) sink.lastFrameNotJson();
            return;
          case 'connected':
            put(`${JSON.stringify({ k: 'conn', t, e: 'connected' })}\n`, t);
            return;
          case 'disconnected':
            put(`${JSON.stringify({ k: 'conn', t, e: 'disconnected', reason: e.reason })}\n`, t);
            return;
          case 'gap':
            put(`${JSON.stringify({ k: 'gap', t, s: e.gap.startedAt, e: e.gap.endedAt, rooms: e.gap.rooms })}\n`, t);
            return;
          default:
        }
      });
    },
    data(port) {
      return {
        get(path, query, signal) {
          const askedAt = o.clock.now() as number;
          const p = port.get(path, query, signal);
          const record = (body: unknown, error: { code: string; message: string } | undefined): void => {
            if (ended) return;
            const t = o.clock.now() as number;
            const line = redactor.redact(JSON.stringify({ k: 'data', t, q: askedAt, path, ...(query ? { query } : {}), ...(error ? { error } : { body }) }));
            put(`${line}\n`, t);
          };
          p.then(
            (body) => record(body, undefined),
            (e: unknown) => {
              const code = typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' ? (e as { code: string }).code : 'UNKNOWN';
              record(undefined, { code, message: e instanceof Error ? e.message : String(e) });
            },
          );
          return p;
        },
      };
    },
    mark(kind) {
      if (ended) return;
      const t = o.clock.now() as number;
      put(`${JSON.stringify({ k: kind, t })}\n`, t);
    },
    manual(entry) {
      if (ended) return;
      const t = o.clock.now() as number;
      put(`${redactor.redact(JSON.stringify({ k: 'manual', t, m: entry }))}\n`, t);
    },
    control(mark) {
      if (ended) return;
      const t = o.clock.now() as number;
      put(`${redactor.redact(JSON.stringify({ k: 'ctl', t, c: mark }))}\n`, t);
    },
    end,
    flush,
  };
}
