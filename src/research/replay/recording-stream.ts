/**
 * A recording streamed from its files: lines are read, gunzipped, split and parsed a chunk at a time and
 * go through the backtest as they come, so memory holds the engine's state and one chunk, never the
 * recording. What the backtest needs up front (the start line, the run's end line, the last line's
 * time, the `ctx.data` answers) comes from a first pass that decompresses the files and reads only
 * the lines that are not frames (a frame line starts `{"t"`, every other `{"k"`: one byte tells).
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { constants, createGunzip, gunzipSync } from 'node:zlib';
import { ChainpilotError, type UnixMs } from '../../core/index.js';
import type { ManualDecision } from '../../engine/logs/decision-log.js';
import type { ControlMark } from '../../engine/logs/control-mark.js';
import { K } from './prepared-recording.js';
import type { DataLine, LineCursor, ReplayBounds } from './prepared-replay.js';
import { parseRecordLine, RECORDING_FORMAT, type RecordingHeader, type RecordLine } from './recording-format.js';
import { recordingPaths, replayOrder } from './recording-reader.js';
import type { ReplayFeed } from './replay-feed.js';

const CHUNK = 1 << 18;
const NL = 10;
const K_BYTE = 107; // 'k' in `{"k"`

export interface StreamedFile {
  readonly path: string;
  readonly header: RecordingHeader;
  readonly sha256: string;
}

const invalid = (path: string, why: string): ChainpilotError =>
  new ChainpilotError('RECORDING_INVALID', `${path}: ${why}`, { retry: 'not_retryable', context: { path } });

/** Hashes a file's bytes a megabyte at a time (never the whole file in memory), and returns its first 64 KiB. */
export function hashAndHead(path: string): { sha256: string; head: Buffer } {
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(1 << 20);
  let head: Buffer | undefined;
  const fd = openSync(path, 'r');
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      head ??= Buffer.from(buf.subarray(0, Math.min(n, 1 << 16)));
      hash.update(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return { sha256: hash.digest('hex'), head: head ?? Buffer.alloc(0) };
}

/** Hashes a file and checks its header (decompressing only its start); its lines are read later, streamed. */
export function openStreamedFile(path: string): StreamedFile {
  const { sha256, head: raw } = hashAndHead(path);
  const head = path.endsWith('.gz') ? gunzipSync(raw.subarray(0, 1 << 16), { finishFlush: constants.Z_SYNC_FLUSH }) : raw.subarray(0, 1 << 16);
  const nl = head.indexOf(NL);
  let header: RecordingHeader | undefined;
  try {
    const h = JSON.parse(head.toString('utf8', 0, nl < 0 ? head.length : nl)) as RecordingHeader;
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks parsed JSON at runtime
    if (h.k === 'header') header = h;
  } catch {
    header = undefined;
  }
  if (!header) throw invalid(path, "the first line is not a recording header; record with `chainpilot record` or a deployment's record: option");
  if (header.format !== RECORDING_FORMAT) throw invalid(path, `recording format ${header.format}, this chainpilot reads format ${RECORDING_FORMAT}`);
  return { path, header, sha256 };
}

/** The decompressed bytes of a file, a chunk at a time. */
async function* chunksOf(f: StreamedFile): AsyncGenerator<Buffer> {
  const file = createReadStream(f.path, { highWaterMark: CHUNK });
  const source = f.path.endsWith('.gz') ? file.pipe(createGunzip({ chunkSize: CHUNK })) : file;
  for await (const c of source) yield c as Buffer;
}

/**
 * Each file's decompressed bytes cut at line ends: `buf` holds whole lines (the last one without
 * its newline: `buf` ends where it ended), the first of them the file's header when `header` is set.
 * The file's unterminated tail, if any, comes last. `fileIndex` says which file.
 */
async function* lineChunks(files: readonly StreamedFile[]): AsyncGenerator<{ readonly fileIndex: number; readonly buf: Buffer; readonly header: boolean }> {
  for (let fi = 0; fi < files.length; fi++) {
    let carry: Buffer | undefined;
    let header = true;
    for await (const chunk of chunksOf(files[fi]!)) {
      const buf = carry ? Buffer.concat([carry, chunk]) : chunk;
      const last = buf.lastIndexOf(NL);
      if (last < 0) {
        carry = buf;
        continue;
      }
      carry = last + 1 < buf.length ? Buffer.from(buf.subarray(last + 1)) : undefined;
      yield { fileIndex: fi, buf: buf.subarray(0, last), header };
      header = false;
    }
    if (carry && carry.length > 0) yield { fileIndex: fi, buf: carry, header };
  }
}

/**
 * The lines of the files (after each header, empty lines skipped), as text, a batch per chunk.
 * `fileIndex` of a batch says which file it is from.
 */
async function* lineBatches(files: readonly StreamedFile[]): AsyncGenerator<{ readonly fileIndex: number; readonly lines: string[] }> {
  for await (const { fileIndex, buf, header } of lineChunks(files)) {
    const lines = buf.toString('utf8').split('\n');
    if (header) lines.shift();
    yield { fileIndex, lines: lines.filter((l) => l.length > 0) };
  }
}

/** A recording opened for streaming: its files, and what its first pass found. */
export interface StreamedRecording {
  readonly files: readonly StreamedFile[];
  readonly bounds: ReplayBounds;
  readonly dataLines: readonly DataLine[];
  /** A cursor over the lines (one per recording: it is consumed). */
  cursor(): StreamCursor;
}

/** The streamed cursor, and what only reading every line tells. */
export interface StreamCursor extends LineCursor {
  /** Reads the rest of the recording (after the backtest's end) for the counts below. */
  finish(): Promise<void>;
  readonly lines: number;
  readonly badLines: number;
  readonly firstBad: string | undefined;
  /** Rooms with a frame, so far (every one after `finish`). */
  readonly recordedRooms: ReadonlySet<string>;
}

/** What the first pass finds: the bounds' parts and every `ctx.data` answer, by line index. */
interface FirstPass {
  startT: number | null;
  lastEnd: [number, number] | undefined;
  lastDrained: [number, number] | undefined;
  lastT: number | null;
  lines: number;
  readonly dataAt: Map<number, DataLine>;
}

/** The last line of `buf[0, end)` that parses (a crash leaves at most a torn last line): its time, else undefined. */
function lastTimeIn(buf: Buffer, first: number, end: number): number | undefined {
  let e = end;
  while (e > first) {
    const s = Math.max(first, buf.lastIndexOf(NL, e - 1) + 1);
    if (e > s) {
      try {
        return parseRecordLine(buf.toString('utf8', s, e)).t;
      } catch {
        // a torn line: the one before it
      }
    }
    e = s - 1;
  }
  return undefined;
}

/**
 * Reads the non-frame lines of one chunk of whole lines into `p`. Lines are found by their bytes:
 * a frame line (`{"t"`) is counted, never decoded or parsed; only the others (`{"k"`) are.
 */
function firstPassChunk(p: FirstPass, buf: Buffer, header: boolean): void {
  let s = 0;
  if (header) {
    const nl = buf.indexOf(NL);
    s = nl < 0 ? buf.length : nl + 1;
  }
  const first = s;
  while (s < buf.length) {
    let e = buf.indexOf(NL, s);
    if (e < 0) e = buf.length;
    if (e > s) {
      const i = p.lines++;
      if (e - s > 2 && buf[s + 2] === K_BYTE) readMarkLine(p, i, buf.toString('utf8', s, e));
    }
    s = e + 1;
  }
  const t = lastTimeIn(buf, first, buf.length);
  if (t !== undefined) p.lastT = t;
}

/** A non-frame line at index `i`: the start, end and drain marks and the `ctx.data` answers. */
function readMarkLine(p: FirstPass, i: number, line: string): void {
  let l: RecordLine;
  try {
    l = parseRecordLine(line);
  } catch {
    return;
  }
  if (l.kind === 'start') p.startT ??= l.t;
  else if (l.kind === 'end') p.lastEnd = [i, l.t];
  else if (l.kind === 'drained') p.lastDrained = [i, l.t];
  else if (l.kind === 'data') p.dataAt.set(i, l);
}

/** Opens the recording of `spec` for streaming: reads its files' bytes and runs the first pass. */
export async function openRecordingStream(spec: string | readonly string[]): Promise<StreamedRecording> {
  const files = replayOrder(recordingPaths(spec).map(openStreamedFile));
  // The first pass: every non-frame line, by its position among the non-empty lines.
  const p: FirstPass = { startT: null, lastEnd: undefined, lastDrained: undefined, lastT: null, lines: 0, dataAt: new Map() };
  for await (const { buf, header } of lineChunks(files)) firstPassChunk(p, buf, header);
  const { startT, lastEnd, lastDrained, lastT, dataAt } = p;
  const index = p.lines;
  let endIndex = -1;
  let endT: number | null = null;
  const end = lastDrained ?? lastEnd;
  if (end) [endIndex, endT] = end;
  const bounds: ReplayBounds = { startT, endIndex, endT, lastT, totalLines: index };
  let used = false;
  return {
    files,
    bounds,
    dataLines: [...dataAt.values()],
    cursor() {
      if (used) throw new ChainpilotError('CORE_INVALID_ARGUMENT', 'a streamed recording is read once', { retry: 'not_retryable' });
      used = true;
      return streamCursor(files, dataAt);
    },
  };
}

const LINE_KIND: Readonly<Record<RecordLine['kind'], number>> = {
  frame: K.RAW,
  conn: K.CONN,
  gap: K.GAP,
  data: K.DATA,
  start: K.START,
  stop: K.STOP,
  drained: K.DRAINED,
  manual: K.MANUAL,
  control: K.CONTROL,
  end: K.END,
};

function streamCursor(files: readonly StreamedFile[], dataAt: ReadonlyMap<number, DataLine>): StreamCursor {
  const batches = lineBatches(files);
  let batch: string[] = [];
  let fileIndex = 0;
  let at = 0;
  let line: RecordLine | undefined;
  let lines = 0;
  let badLines = 0;
  let firstBad: string | undefined;
  const rooms = new Set<string>();
  const c: StreamCursor = {
    kind: -1,
    t: 0,
    index: -1,
    next() {
      const self = c as { kind: number; t: number; index: number };
      while (at < batch.length) {
        const text = batch[at++]!;
        self.index++;
        let l: RecordLine;
        try {
          l = parseRecordLine(text);
        } catch (e) {
          badLines++;
          firstBad ??= `${files[fileIndex]!.path}: ${e instanceof Error ? e.message : String(e)}: ${text.slice(0, 120)}`;
          continue;
        }
        lines++;
        if (l.kind === 'frame') {
          const room = (l.frame as { room?: unknown } | undefined)?.room;
          if (typeof room === 'string') rooms.add(room);
        }
        line = l;
        self.kind = LINE_KIND[l.kind];
        self.t = l.t;
        return true;
      }
      return false;
    },
    async refill() {
      const r = await batches.next();
      if (r.done === true) return false;
      batch = r.value.lines;
      fileIndex = r.value.fileIndex;
      at = 0;
      return true;
    },
    deliver(feed: ReplayFeed) {
      const l = line as Extract<RecordLine, { kind: 'frame' }>;
      feed.frame(l.frame, l.text, (l.rt ?? l.t) as UnixMs);
    },
    gap() {
      const l = line as Extract<RecordLine, { kind: 'gap' }>;
      return { startedAt: l.startedAt, endedAt: l.endedAt, rooms: l.rooms };
    },
    data() {
      return dataAt.get(c.index) ?? (line as DataLine);
    },
    manual(): ManualDecision {
      return (line as Extract<RecordLine, { kind: 'manual' }>).entry;
    },
    control(): ControlMark {
      return (line as Extract<RecordLine, { kind: 'control' }>).mark;
    },
    async finish() {
      for (;;) {
        while (c.next()) {
          // counted and its room noted by next()
        }
        if (!(await c.refill())) return;
      }
    },
    get lines() {
      return lines;
    },
    get badLines() {
      return badLines;
    },
    get firstBad() {
      return firstBad;
    },
    recordedRooms: rooms,
  };
  return c;
}
