/**
 * A recording's files as the streamed replay reads them (recording-stream.ts): each file hashed a
 * megabyte at a time with its header line read (however long), and its decompressed bytes cut at
 * line ends a chunk at a time, read and inflated synchronously into buffers made once per file.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { constants, createGunzip, gunzipSync } from 'node:zlib';
import { ChainpilotError } from '../../core/index.js';
import { RECORDING_FORMAT, type RecordingHeader } from './recording-format.js';

/** Decompressed bytes per chunk, and compressed bytes per read. */
const CHUNK = 1 << 18;
const IN_CHUNK = 1 << 16;
export const NL = 10;

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
function hashAndHead(path: string): { sha256: string; head: Buffer } {
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
export function* lineChunks(files: readonly StreamedFile[]): Generator<{ readonly fileIndex: number; readonly buf: Buffer; readonly header: boolean }> {
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
