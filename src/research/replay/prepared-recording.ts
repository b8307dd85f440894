/**
 * The prepared form of a recording (format 4): the recording's lines as the engine consumes them,
 * in typed-array columns inside one buffer, so a replay reads numbers out of arrays instead of
 * parsing JSON, and the buffer can be shared between threads as it is (a SharedArrayBuffer view).
 *
 * Per line: its kind, run-clock time, receive time, room (an interned string) and where its payload
 * is. A price frame is a row of price columns (exact integer reserves in BigInt64 columns, the
 * numbers as sent); another message frame whose family maps it to one domain event holds that event
 * as the normaliser built it; a frame of a row family (swaps, liquidity) holds its typed rows; each
 * with the dedup fingerprints the client would compute. Anything else (a frame the client's guard
 * rejects or counts, a text frame, connection, gap, data, manual and control lines) is kept as its
 * parsed value and replayed through the client's own path. See docs/backtesting.md.
 *
 * Layout: `CPREPLAY`, the format, a byte-order mark, sha256 of the body (checked when read from a
 * file, not by `openPrepared`), the section table, then the sections, each 8-byte aligned: the
 * meta JSON, the string and shape tables, and the columns in `COLUMNS` order.
 */
import { ChainpilotError } from '../../core/index.js';
import type { RecordingHeader, RecordLine } from './recording-format.js';
import { readTreeAt, type TreeColumns } from './prepared-codec.js';

export const PREPARED_FORMAT = 4;
export const PREPARED_MAGIC = 'CPREPLAY';
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** What a line of the prepared form is. */
export const K = {
  /** A price frame: a row of the price columns. */
  PRICE: 0,
  /** A message frame whose one domain event is stored (tree `aux`). */
  EVENT: 1,
  /** A message frame of a row family: its typed rows (tree `aux`). */
  ROWS: 2,
  /** Any other frame: its parsed value (tree `aux`), replayed through the client's path. */
  RAW: 3,
  /** A frame kept as text (not JSON): the text (tree `aux`). */
  TEXT: 4,
  CONN: 5,
  GAP: 6,
  DATA: 7,
  START: 8,
  STOP: 9,
  DRAINED: 10,
  MANUAL: 11,
  CONTROL: 12,
  END: 13,
} as const;

/** Flags of a price row. */
export const PF = { AGGREGATED: 1, SOL_RES: 2, TOKEN_RES: 4 } as const;

/** The columns, in file order. */
export interface PreparedColumns {
  readonly kind: Uint8Array;
  readonly t: Float64Array;
  /** The feed's receive time (`rt`, else `t`). */
  readonly rt: Float64Array;
  /** Room (string index), -1 when none. */
  readonly room: Int32Array;
  /** Price row or tree index. */
  readonly aux: Int32Array;
  /** First fingerprint of the line's rows, -1 when its family has no identity (no dedup). */
  readonly fp: Int32Array;
  readonly fpHi: Uint32Array;
  readonly fpLo: Uint32Array;
  /** Price rows: mint (string index, -1 undefined), SOL price (NaN: none), USD price (NaN: undefined), flags. */
  readonly pMint: Int32Array;
  readonly pSol: Float64Array;
  readonly pUsd: Float64Array;
  readonly pFlags: Uint8Array;
  /** Pool and market (string index, -1 undefined), liquidity USD and fee bps (NaN undefined), reserves, time (NaN undefined). */
  readonly pPool: Int32Array;
  readonly pMarket: Int32Array;
  readonly pLiq: Float64Array;
  readonly pFee: Float64Array;
  readonly pSolRes: BigInt64Array;
  readonly pTokenRes: BigInt64Array;
  readonly pAt: Float64Array;
  /** Tree values: events, rows, raw frames and non-frame lines. */
  readonly tree: TreeColumns;
}

type NumericKey = Exclude<keyof PreparedColumns, 'tree'>;
type ArrayCtor = Uint8ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor | Float64ArrayConstructor | BigInt64ArrayConstructor;

const COLUMNS: readonly (readonly [NumericKey, ArrayCtor])[] = [
  ['kind', Uint8Array],
  ['t', Float64Array],
  ['rt', Float64Array],
  ['room', Int32Array],
  ['aux', Int32Array],
  ['fp', Int32Array],
  ['fpHi', Uint32Array],
  ['fpLo', Uint32Array],
  ['pMint', Int32Array],
  ['pSol', Float64Array],
  ['pUsd', Float64Array],
  ['pFlags', Uint8Array],
  ['pPool', Int32Array],
  ['pMarket', Int32Array],
  ['pLiq', Float64Array],
  ['pFee', Float64Array],
  ['pSolRes', BigInt64Array],
  ['pTokenRes', BigInt64Array],
  ['pAt', Float64Array],
];
const TREE_COLUMNS: readonly (readonly [keyof TreeColumns & ('tags' | 'ints' | 'floats' | 'startTag' | 'startInt' | 'startFloat'), ArrayCtor])[] = [
  ['tags', Uint8Array],
  ['ints', Int32Array],
  ['floats', Float64Array],
  ['startTag', Int32Array],
  ['startInt', Int32Array],
  ['startFloat', Int32Array],
];
/** meta, strings, shapes, then the columns. */
const SECTIONS = 3 + COLUMNS.length + TREE_COLUMNS.length;
const TABLE_AT = 56;
const BODY_AT = align8(TABLE_AT + SECTIONS * 8);
/** Where the body's sha256 is (bytes 16..48). */
export const PREPARED_BODY_AT = BODY_AT;

function align8(n: number): number {
  return (n + 7) & ~7;
}

/** What the whole recording says up front: what a replay needs before its first line. */
export interface PreparedMeta {
  readonly files: readonly { readonly path: string; readonly sha256: string; readonly header: RecordingHeader }[];
  readonly badLines: number;
  readonly firstBad: string | null;
  /** Rooms with a message frame (string indexes). */
  readonly recordedRooms: readonly number[];
  /** Payload rows of the message frames (an array's length, else 1), for the dedup window's size. */
  readonly rows: number;
  /** Time of the first `start` line, of the last `end` line, of the last line; index of the run's end line (last `drained`, else last `end`), -1 when none. */
  readonly startT: number | null;
  readonly lastEndT: number | null;
  readonly lastT: number | null;
  readonly endIndex: number;
  /** The prepared cache's key and the chainpilot that wrote it (prepared-cache.ts; absent in memory). */
  readonly key?: string;
  readonly chainpilot?: string;
}

/** An opened prepared recording: views over one buffer; nothing in it changes while replays read it. */
export interface Recording {
  /** The whole prepared form (share this; `openPrepared` opens it again anywhere). */
  readonly bytes: Uint8Array;
  readonly files: readonly { readonly path: string; readonly sha256: string; readonly header: RecordingHeader }[];
  /** Lines that were not records (a truncated last line after a crash, for example). */
  readonly badLines: number;
  readonly firstBad: string | undefined;
  /** Recording lines (the headers and bad lines not counted). */
  readonly lineCount: number;
  /** Every room with a message frame in the recording. */
  readonly recordedRooms: ReadonlySet<string>;
  /** Run-clock time of the start line (else the first header's start), and of the last end line (else the last line). */
  readonly span: { readonly first: number; readonly last: number };
  readonly meta: PreparedMeta;
  readonly columns: PreparedColumns;
  readonly strings: readonly string[];
  /** The recorded `ctx.data` answers, in order, and by line index. */
  readonly dataLines: readonly Extract<RecordLine, { kind: 'data' }>[];
  readonly dataAt: ReadonlyMap<number, Extract<RecordLine, { kind: 'data' }>>;
}

/** Serialises columns and meta into the prepared form's bytes (in a SharedArrayBuffer with `shared`). */
export function encodePrepared(cols: PreparedColumns, meta: PreparedMeta, shared = false): Uint8Array {
  const enc = new TextEncoder();
  const texts = [enc.encode(JSON.stringify(meta)), enc.encode(JSON.stringify(cols.tree.strings)), enc.encode(JSON.stringify(cols.tree.shapes))];
  const arrays: ArrayBufferView[] = [...texts, ...COLUMNS.map(([k]) => cols[k]), ...TREE_COLUMNS.map(([k]) => cols.tree[k])];
  let size = BODY_AT;
  for (const a of arrays) size = align8(size) + a.byteLength;
  size = align8(size);
  const out = new Uint8Array(shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size));
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  for (let i = 0; i < 8; i++) out[i] = PREPARED_MAGIC.charCodeAt(i);
  view.setUint32(8, PREPARED_FORMAT, true);
  view.setUint32(12, LITTLE_ENDIAN ? 1 : 0, true);
  view.setUint32(48, SECTIONS, true);
  let at = BODY_AT;
  arrays.forEach((a, i) => {
    at = align8(at);
    view.setUint32(TABLE_AT + i * 8, at, true);
    view.setUint32(TABLE_AT + i * 8 + 4, a.byteLength, true);
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += a.byteLength;
  });
  return out;
}

const corrupt = (why: string): ChainpilotError =>
  new ChainpilotError('RECORDING_CACHE_CORRUPT', `not a prepared recording this chainpilot reads: ${why}`, { retry: 'not_retryable' });

/** Why `bytes` are not a prepared form of this format (magic, format, byte order, section table), or undefined. */
export function preparedProblem(bytes: Uint8Array): string | undefined {
  if (bytes.byteLength < BODY_AT) return 'not a prepared cache file';
  for (let i = 0; i < 8; i++) if (bytes[i] !== PREPARED_MAGIC.charCodeAt(i)) return 'not a prepared cache file';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const format = view.getUint32(8, true);
  if (format !== PREPARED_FORMAT) return `cache format ${format}, this chainpilot writes ${PREPARED_FORMAT}`;
  if ((view.getUint32(12, true) === 1) !== LITTLE_ENDIAN) return 'written on a machine of the other byte order';
  if (view.getUint32(48, true) !== SECTIONS) return 'another section table';
  let end = BODY_AT;
  for (let i = 0; i < SECTIONS; i++) {
    const off = view.getUint32(TABLE_AT + i * 8, true);
    const len = view.getUint32(TABLE_AT + i * 8 + 4, true);
    if (off !== align8(end) || off + len > bytes.byteLength) return 'truncated or padded (section lengths do not add up to its size)';
    end = off + len;
  }
  if (align8(end) !== bytes.byteLength) return 'truncated or padded (section lengths do not add up to its size)';
  return undefined;
}

/**
 * Opens prepared bytes (`Recording.bytes`, or a view over a SharedArrayBuffer holding them): checks
 * the magic, format, byte order and section table, never hashes, and copies only when `bytes` does
 * not start at a multiple of 8 (typed-array views need it). Throws RECORDING_CACHE_CORRUPT.
 */
export function openPrepared(bytes: Uint8Array): Recording {
  const problem = preparedProblem(bytes);
  if (problem !== undefined) throw corrupt(problem);
  let b = bytes;
  if (b.byteOffset % 8 !== 0) {
    b = new Uint8Array(bytes.byteLength);
    b.set(bytes);
  }
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const section = (i: number): [number, number] => [b.byteOffset + view.getUint32(TABLE_AT + i * 8, true), view.getUint32(TABLE_AT + i * 8 + 4, true)];
  const dec = new TextDecoder();
  const text = (i: number): string => {
    const [off, len] = section(i);
    // a TextDecoder does not read a view over a SharedArrayBuffer: the (small) text sections are copied
    return dec.decode(b.buffer instanceof SharedArrayBuffer ? new Uint8Array(b.buffer, off, len).slice() : new Uint8Array(b.buffer, off, len));
  };
  const typed = (i: number, C: ArrayCtor): ArrayBufferView => {
    const [off, len] = section(i);
    if (len % C.BYTES_PER_ELEMENT !== 0) throw corrupt(`section ${i} is not whole elements`);
    return new C(b.buffer as ArrayBuffer, off, len / C.BYTES_PER_ELEMENT);
  };
  let meta: PreparedMeta;
  let strings: string[];
  let shapes: string[][];
  try {
    meta = JSON.parse(text(0)) as PreparedMeta;
    strings = JSON.parse(text(1)) as string[];
    shapes = JSON.parse(text(2)) as string[][];
  } catch (e) {
    throw corrupt(e instanceof Error ? e.message : String(e));
  }
  const cols: Record<string, unknown> = {};
  COLUMNS.forEach(([k, C], i) => (cols[k] = typed(3 + i, C)));
  const tree: Record<string, unknown> = { strings, shapes };
  TREE_COLUMNS.forEach(([k, C], i) => (tree[k] = typed(3 + COLUMNS.length + i, C)));
  cols['tree'] = tree;
  const columns = cols as unknown as PreparedColumns;
  const n = columns.kind.length;
  if (columns.t.length !== n || columns.rt.length !== n || columns.room.length !== n || columns.aux.length !== n || columns.fp.length !== n)
    throw corrupt('line columns of different lengths');
  const dataLines: Extract<RecordLine, { kind: 'data' }>[] = [];
  const dataAt = new Map<number, Extract<RecordLine, { kind: 'data' }>>();
  for (let i = 0; i < n; i++) {
    if (columns.kind[i] !== K.DATA) continue;
    const l = readTreeAt(columns.tree, columns.aux[i]!) as Extract<RecordLine, { kind: 'data' }>;
    dataLines.push(l);
    dataAt.set(i, l);
  }
  const first = meta.startT ?? meta.files[0]?.header.startedAt ?? 0;
  return {
    bytes: b,
    files: meta.files,
    badLines: meta.badLines,
    firstBad: meta.firstBad ?? undefined,
    lineCount: n,
    recordedRooms: new Set(meta.recordedRooms.map((i) => strings[i]!)),
    span: { first, last: meta.lastEndT ?? meta.lastT ?? first },
    meta,
    columns,
    strings,
    dataLines,
    dataAt,
  };
}
