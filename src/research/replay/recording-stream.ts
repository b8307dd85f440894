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
import { ChainpilotError, type UnixMs } from '../../core/index.js';
import type { ManualDecision } from '../../engine/logs/decision-log.js';
import type { ControlMark } from '../../engine/logs/control-mark.js';
import { K } from './prepared-recording.js';
import type { DataLine, LineCursor, ReplayBounds } from './prepared-replay.js';
import { parseRecordLine, type RecordLine } from './recording-format.js';
import { lineChunks, NL, openStreamedFile, type StreamedFile } from './recording-file.js';
import { recordingPaths, replayOrder } from './recording-reader.js';
import type { ReplayFeed } from './replay-feed.js';

const K_BYTE = 107; // 'k' in `{"k"`

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
