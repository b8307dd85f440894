/**
 * A recording streamed from its files: lines are read, gunzipped, split and parsed a chunk at a time and
 * go through the backtest as they come, so memory holds the engine's state and one chunk, never the
 * recording. What the backtest needs up front (the start line, the run's end line, the last line's
 * time, the `ctx.data` answers) comes from a first pass that decompresses the files and reads only
 * the lines that are not frames (a frame line starts `{"t"`, every other `{"k"`: one byte tells).
 * The replay's cursor then reads the lines out of the decompressed chunks in place; a message frame
 * is read by its first bytes (time and room) and parsed only if someone holds its room when it is
 * delivered (on the 24-hour paper-sim recording 7.8 % of the frames reach nobody).
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { constants, createGunzip, gunzipSync } from 'node:zlib';
import { ChainpilotError, type UnixMs } from '../../core/index.js';
import type { ManualDecision } from '../../engine/logs/decision-log.js';
import type { ControlMark } from '../../engine/logs/control-mark.js';
import { K } from './prepared-recording.js';
import type { DataLine, LineCursor, ReplayBounds } from './prepared-replay.js';
import { parseRecordLine, RECORDING_FORMAT, type RecordingHeader, type RecordLine } from './recording-format.js';
import { recordingPaths, replayOrder } from './recording-reader.js';
import type { ReplayFeed } from './replay-feed.js';

/** Decompressed bytes per chunk, and compressed bytes per read. */
const CHUNK = 1 << 18;
const IN_CHUNK = 1 << 16;
const NL = 10;
const K_BYTE = 107; // 'k' in `{"k"`

export interface StreamedFile {
  readonly path: string;
  readonly header: RecordingHeader;
  readonly sha256: string;
}

const invalid = (path: string, why: string): ChainpilotError =>
  new ChainpilotError('RECORDING_INVALID', `${path}: ${why}`, { retry: 'not_retryable', context: { path } });

/** The longest header line read (a download's header lists every token's rooms: 421 KB at 341 tokens). */
const HEADER_LIMIT = 64 << 20;
/** The decompressed prefix tried first for the header line (enough for every recorder's header). */
const HEAD_TRY = 1 << 16;

/** Hashes a file's bytes a megabyte at a time (never the whole file in memory); `onChunk` sees each chunk as read. */
export function hashFile(path: string, onChunk?: (chunk: Buffer) => void): string {
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(path, 'r');
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      onChunk?.(buf.subarray(0, n));
      hash.update(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/** The start of a file's text, decompressed when it is gzip (a cut gzip stream yields what it holds). */
const textOf = (path: string, raw: Buffer): Buffer => (path.endsWith('.gz') ? gunzipSync(raw, { finishFlush: constants.Z_SYNC_FLUSH }) : raw);

/**
 * Hashes a file (as {@link hashFile}) and returns its first line, decompressed: the first 64 KiB
 * are tried, and a longer line is looked for in the raw bytes read so far, up to 64 MiB of them.
 */
export function hashAndHead(path: string): { sha256: string; head: Buffer } {
  const raw: Buffer[] = [];
  let rawBytes = 0;
  let head: Buffer | undefined;
  const sha256 = hashFile(path, (chunk) => {
    if (head !== undefined || rawBytes >= HEADER_LIMIT) return;
    raw.push(Buffer.from(chunk));
    rawBytes += chunk.length;
    const all = raw.length === 1 ? raw[0]! : Buffer.concat(raw);
    // the first 64 KiB alone first: decompressing a whole megabyte would cost more than the header
    for (const cut of raw.length === 1 && all.length > HEAD_TRY ? [HEAD_TRY, all.length] : [all.length]) {
      const text = textOf(path, all.subarray(0, cut));
      const nl = text.indexOf(NL);
      if (nl >= 0) {
        head = text.subarray(0, nl);
        raw.length = 0;
        return;
      }
    }
  });
  // a file of one line (no newline): its whole text, up to the limit
  head ??= textOf(path, Buffer.concat(raw));
  return { sha256, head };
}

/** Hashes a file and checks its header (decompressing only its start); its lines are read later, streamed. */
export function openStreamedFile(path: string): StreamedFile {
  const { sha256, head } = hashAndHead(path);
  let header: RecordingHeader | undefined;
  try {
    const h = JSON.parse(head.toString('utf8')) as RecordingHeader;
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks parsed JSON at runtime
    if (h.k === 'header') header = h;
  } catch {
    header = undefined;
  }
  if (!header) throw invalid(path, "the first line is not a recording header; record with `chainpilot record` or a deployment's record: option");
  if (header.format !== RECORDING_FORMAT) throw invalid(path, `recording format ${header.format}, this chainpilot reads format ${RECORDING_FORMAT}`);
  return { path, header, sha256 };
}

/** The zlib handle's synchronous step (node's own `zlib.*Sync` functions drive the same call). */
interface InflateHandle {
  writeSync(flush: number, input: Buffer, inOff: number, inLen: number, out: Buffer, outOff: number, outLen: number): void;
}

/**
 * The decompressed bytes of a file, a chunk at a time, all of them in one buffer that the next chunk
 * overwrites (a consumer is done with a chunk when it asks for the next). The file is read and
 * inflated synchronously into two buffers allocated once per file, so reading a recording frees
 * nothing: a streamed gunzip allocates a fresh 256 KiB buffer per chunk, which the process frees
 * only when a collection finds it dead, and the freed chunks stay resident between the allocations
 * that outlive them (25–35 MB of the 24-hour recording's peak RSS; docs/performance.md). The handle
 * is the one `createGunzip` makes, driven the way node's `gunzipSync` drives it.
 */
function* chunksOf(f: StreamedFile): Generator<Buffer> {
  const fd = openSync(f.path, 'r');
  const input = Buffer.allocUnsafe(IN_CHUNK);
  try {
    if (!f.path.endsWith('.gz')) {
      const out = Buffer.allocUnsafe(CHUNK);
      for (let n; (n = readSync(fd, out, 0, CHUNK, null)) > 0;) yield out.subarray(0, n);
      return;
    }
    yield* inflated(fd, input);
  } finally {
    closeSync(fd);
  }
}

let warnedWhole = false;

/**
 * The gzip stream read from `fd`, inflated a chunk at a time into one output buffer. The handle and
 * its state array are node's internals (unchanged from node 10 to 24); should a node lack them, the
 * file is inflated whole instead (the same bytes, held at once), with one process warning saying so.
 * `internals: false` takes that path (tests).
 */
export function* inflated(fd: number, input: Buffer, internals = true): Generator<Buffer> {
  const z = createGunzip();
  const zs = z as unknown as { readonly _handle?: Partial<InflateHandle> | null; readonly _writeState?: unknown };
  if (!internals || typeof zs._handle?.writeSync !== 'function' || !(zs._writeState instanceof Uint32Array)) {
    z.close();
    if (internals && !warnedWhole) {
      warnedWhole = true;
      process.emitWarning('this node has no synchronous zlib handle: recordings are inflated whole, not a chunk at a time', {
        code: 'CHAINPILOT_INFLATE_WHOLE',
      });
    }
    const text = gunzipSync(readFileSync(fd));
    for (let at = 0; at < text.length; at += CHUNK) yield text.subarray(at, Math.min(text.length, at + CHUNK));
    return;
  }
  const handle = zs._handle as InflateHandle;
  const writeState = zs._writeState;
  // a corrupt or torn stream: the handle destroys the stream with the error (so `errored` says it at once), which is then emitted
  z.on('error', () => undefined);
  const out = Buffer.allocUnsafe(CHUNK);
  let outOff = 0;
  try {
    for (let eof = false; !eof;) {
      const n = readSync(fd, input, 0, IN_CHUNK, null);
      eof = n === 0;
      let inOff = 0;
      let inLen = n;
      for (;;) {
        handle.writeSync(eof ? constants.Z_FINISH : constants.Z_NO_FLUSH, input, inOff, inLen, out, outOff, CHUNK - outOff);
        if (z.errored) throw z.errored;
        const availOut = writeState[0]!;
        const availIn = writeState[1]!;
        inOff += inLen - availIn;
        inLen = availIn;
        outOff = CHUNK - availOut;
        if (availOut > 0) break; // it took all the input (or the stream ended): read more
        yield out;
        outOff = 0;
      }
    }
    if (outOff > 0) yield out.subarray(0, outOff);
  } finally {
    z.close();
  }
}

/**
 * Each file's decompressed bytes cut at line ends: `buf` holds whole lines (the last one without
 * its newline: `buf` ends where it ended), the first of them the file's header when `header` is set.
 * `buf` is valid until the next chunk is asked for (it lies in the reading's one buffer). A line
 * cut across two chunks is copied and joined alone (never the chunk); the file's unterminated tail,
 * if any, comes last. `fileIndex` says which file.
 */
function* lineChunks(files: readonly StreamedFile[]): Generator<{ readonly fileIndex: number; readonly buf: Buffer; readonly header: boolean }> {
  for (let fi = 0; fi < files.length; fi++) {
    let carry: Buffer[] = [];
    let header = true;
    for (const chunk of chunksOf(files[fi]!)) {
      let from = 0;
      if (carry.length > 0) {
        const nl = chunk.indexOf(NL);
        if (nl < 0) {
          carry.push(Buffer.from(chunk));
          continue;
        }
        carry.push(chunk.subarray(0, nl));
        yield { fileIndex: fi, buf: Buffer.concat(carry), header };
        header = false;
        carry = [];
        from = nl + 1;
      }
      const last = chunk.lastIndexOf(NL);
      if (last < from) {
        if (from < chunk.length) carry.push(Buffer.from(chunk.subarray(from)));
        continue;
      }
      if (last + 1 < chunk.length) carry.push(Buffer.from(chunk.subarray(last + 1)));
      if (last > from) {
        yield { fileIndex: fi, buf: chunk.subarray(from, last), header };
        header = false;
      }
    }
    if (carry.length > 0) {
      const tail = Buffer.concat(carry);
      if (tail.length > 0) yield { fileIndex: fi, buf: tail, header };
    }
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
  for (const { buf, header } of lineChunks(files)) firstPassChunk(p, buf, header);
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

const T_PREFIX = Buffer.from('{"t":');
const RT_KEY = Buffer.from(',"rt":');
/** A message frame whose room comes first, as the simulator and the service write them. */
const ROOM_KEY = Buffer.from(',"f":{"type":"message","room":"');
const QUOTE = 34;
const BACKSLASH = 92;
const RBRACE = 125;

/** The number the digits of `buf` from `at` spell (at most 15 of them: exact), and where they end; undefined when none. */
function digitsAt(buf: Buffer, at: number, end: number): readonly [number, number] | undefined {
  let v = 0;
  let i = at;
  while (i < end && i - at <= 15) {
    const d = buf[i]! - 48;
    if (d < 0 || d > 9) break;
    v = v * 10 + d;
    i++;
  }
  return i === at || i - at > 15 ? undefined : [v, i];
}

const startsAt = (buf: Buffer, at: number, end: number, what: Buffer): boolean =>
  end - at >= what.length && buf.compare(what, 0, what.length, at, at + what.length) === 0;

/**
 * A message frame line read by its bytes: `{"t":T[,"rt":RT],"f":{"type":"message","room":"ROOM",…}}`
 * with T and RT whole numbers and ROOM plain ASCII (no escape). Its time and room, or undefined for
 * any other shape (that line is parsed whole when reached).
 */
export function frameHead(buf: Buffer, s: number, e: number): { readonly t: number; readonly room: string } | undefined {
  if (buf[e - 1] !== RBRACE || buf[e - 2] !== RBRACE || !startsAt(buf, s, e, T_PREFIX)) return undefined;
  const t = digitsAt(buf, s + T_PREFIX.length, e);
  if (t === undefined) return undefined;
  let at = t[1];
  if (startsAt(buf, at, e, RT_KEY)) {
    const rt = digitsAt(buf, at + RT_KEY.length, e);
    if (rt === undefined) return undefined;
    at = rt[1];
  }
  if (!startsAt(buf, at, e, ROOM_KEY)) return undefined;
  const r0 = at + ROOM_KEY.length;
  for (let i = r0; i < e; i++) {
    const ch = buf[i]!;
    if (ch === QUOTE) return i > r0 ? { t: t[0], room: buf.toString('latin1', r0, i) } : undefined;
    if (ch === BACKSLASH || ch >= 0x80) return undefined;
  }
  return undefined;
}

/**
 * The cursor over the files' lines, read from the decompressed chunks in place (no chunk is turned
 * into text). A message frame (`frameHead`) is parsed only when it is delivered and someone holds
 * its room at that moment: a frame of a room nobody holds costs a scan of its first bytes, and the
 * feed counts it as unrouted as the client would. Every other line is parsed when reached.
 */
function streamCursor(files: readonly StreamedFile[], dataAt: ReadonlyMap<number, DataLine>): StreamCursor {
  const chunks = lineChunks(files);
  let buf: Buffer = Buffer.alloc(0);
  let pos = 0;
  let fileIndex = 0;
  let line: RecordLine | undefined;
  /** The current line's room when it is a message frame not parsed yet (its bytes: `lazyStart`..`lazyEnd`). */
  let lazyRoom: string | undefined;
  let lazyStart = 0;
  let lazyEnd = 0;
  let lines = 0;
  let badLines = 0;
  let firstBad: string | undefined;
  const rooms = new Set<string>();
  const bad = (e: unknown, text: string): void => {
    badLines++;
    firstBad ??= `${files[fileIndex]!.path}: ${e instanceof Error ? e.message : String(e)}: ${text.slice(0, 120)}`;
  };
  const c: StreamCursor = {
    kind: -1,
    t: 0,
    index: -1,
    next() {
      const self = c as { kind: number; t: number; index: number };
      while (pos < buf.length) {
        const s = pos;
        let e = buf.indexOf(NL, s);
        if (e < 0) e = buf.length;
        pos = e + 1;
        if (e === s) continue;
        self.index++;
        const head = frameHead(buf, s, e);
        if (head !== undefined) {
          lines++;
          rooms.add(head.room);
          line = undefined;
          lazyRoom = head.room;
          lazyStart = s;
          lazyEnd = e;
          self.kind = K.RAW;
          self.t = head.t;
          return true;
        }
        const text = buf.toString('utf8', s, e);
        let l: RecordLine;
        try {
          l = parseRecordLine(text);
        } catch (err) {
          bad(err, text);
          continue;
        }
        lines++;
        if (l.kind === 'frame') {
          const room = (l.frame as { room?: unknown } | undefined)?.room;
          if (typeof room === 'string') rooms.add(room);
        }
        line = l;
        lazyRoom = undefined;
        self.kind = LINE_KIND[l.kind];
        self.t = l.t;
        return true;
      }
      return false;
    },
    async refill() {
      const r = chunks.next();
      if (r.done === true) return false;
      buf = r.value.buf;
      fileIndex = r.value.fileIndex;
      pos = 0;
      if (r.value.header) {
        const nl = buf.indexOf(NL);
        pos = nl < 0 ? buf.length : nl + 1;
      }
      return true;
    },
    deliver(feed: ReplayFeed) {
      if (lazyRoom !== undefined) {
        if (!feed.holds(lazyRoom)) {
          feed.unrouted();
          return;
        }
        const text = buf.toString('utf8', lazyStart, lazyEnd);
        try {
          line = parseRecordLine(text);
        } catch (err) {
          // its first bytes looked like a frame but it is not JSON: a bad line after all, delivered to nobody
          lines--;
          bad(err, text);
          return;
        }
      }
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
