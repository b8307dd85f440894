/**
 * One prepared recording for every lane of a sweep. The main thread loads the recording once
 * (through its prepared cache, see backtest-job.ts `loadRecording`) and puts the prepared bytes in a
 * SharedArrayBuffer; each worker thread opens the recording from that memory: it reads no file and
 * hashes nothing (the main thread checked the bytes when it loaded them).
 *
 * This is the one seam between the sweep and the prepared form: `shareRecording` (main thread) and
 * `openSharedRecording` (worker). Today's prepared form is the cache file of prepared-cache.ts
 * (format 3), which a worker still decodes into record lines; the streamed prepared form replaces
 * both functions' bodies with `loadRecording(…, { shared: true })` and `openPrepared(bytes)`.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { ChainpilotError } from '../../core/index.js';
import { chainpilotVersion } from '../record/version.js';
import { decodeTree } from '../replay/prepared-codec.js';
import { encodePreparedCache, preparedCacheKey, type PreparedRecording } from '../replay/prepared-cache.js';
import type { RecordingHeader, RecordLine } from '../replay/recording-format.js';
import { recordingPaths, replayOrder, type Recording } from '../replay/recording-reader.js';

/** What a worker needs to open the sweep's recording: the prepared bytes in shared memory, and what they must be. */
export interface SharedRecording {
  /** The prepared form's bytes (today: the prepared cache file's layout). */
  readonly bytes: SharedArrayBuffer;
  /** The recording files in name order (their paths name the files in reports; they are not read). */
  readonly paths: readonly string[];
  /** The prepared cache key the bytes must carry (recording hashes and chainpilot version). */
  readonly key: string;
}

/** The layout this module reads: prepared-cache.ts, format 3 (see `encodePreparedCache`). */
const KNOWN_FORMAT = 3;
const MAGIC = 'CPREPLAY';
const HEADER_BYTES = 72;

interface CacheMeta {
  readonly key: string;
  readonly files: readonly { readonly sha256: string; readonly header: RecordingHeader }[];
  readonly badLines: number;
  readonly firstBad: readonly [number, string] | null;
}

const corrupt = (why: string): ChainpilotError =>
  new ChainpilotError('BACKTEST_RECORDING_MISMATCH', `sweep: the shared prepared recording ${why}`, { retry: 'not_retryable' });

/** Section views over the bytes, and the metadata; no checksum (the loader checked it). */
function layoutOf(b: Buffer): { meta: CacheMeta; floats: Float64Array; ints: Int32Array; tags: Uint8Array; strings: string; shapes: string } {
  if (b.length < HEADER_BYTES || b.toString('latin1', 0, 8) !== MAGIC) throw corrupt('is not a prepared recording');
  const format = b.readUInt32LE(8);
  if (format !== KNOWN_FORMAT) throw corrupt(`has format ${format}; this sweep reads format ${KNOWN_FORMAT} (src/research/backtest/sweep-shared.ts)`);
  const [nFloats, nInts, nTags, metaLen, stringsLen, shapesLen] = [0, 1, 2, 3, 4, 5].map((i) => b.readUInt32LE(48 + i * 4)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (HEADER_BYTES + nFloats * 8 + nInts * 4 + nTags + metaLen + stringsLen + shapesLen !== b.length) throw corrupt('is truncated');
  let at = b.byteOffset + HEADER_BYTES;
  const floats = new Float64Array(b.buffer, at, nFloats);
  at += nFloats * 8;
  const ints = new Int32Array(b.buffer, at, nInts);
  at += nInts * 4;
  const tags = new Uint8Array(b.buffer, at, nTags);
  let off = HEADER_BYTES + nFloats * 8 + nInts * 4 + nTags;
  const text = (n: number): string => b.toString('utf8', off, (off += n));
  const meta = JSON.parse(text(metaLen)) as CacheMeta;
  return { meta, floats, ints, tags, strings: text(stringsLen), shapes: text(shapesLen) };
}

/** Reads a whole file into a new SharedArrayBuffer (offset 0, so every typed-array view is aligned). */
function readShared(path: string): SharedArrayBuffer {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const sab = new SharedArrayBuffer(size);
    const view = new Uint8Array(sab);
    for (let at = 0; at < size;) {
      const n = readSync(fd, view, at, size - at, at);
      if (n === 0) throw corrupt(`file ${path} ended early`);
      at += n;
    }
    return sab;
  } finally {
    closeSync(fd);
  }
}

/**
 * The main thread's side: the prepared bytes of a recording it has loaded, in shared memory. They
 * are the cache file it loaded or built (read once more, from the page cache) when its key is this
 * recording's; otherwise (`--no-cache`, an unwritable cache directory, a file replaced meanwhile)
 * the recording encoded in memory.
 */
export function shareRecording(
  data: string | readonly string[],
  loaded: { readonly recording: Recording; readonly cache: PreparedRecording['cache'] | { readonly status: 'off' } },
): SharedRecording {
  const { recording } = loaded;
  const paths = recordingPaths(data);
  const byPath = new Map(recording.files.map((f) => [f.path, f.sha256]));
  const version = chainpilotVersion();
  const key = preparedCacheKey(
    paths.map((p) => byPath.get(p) ?? ''),
    version,
  );
  const c = loaded.cache;
  if (c.status === 'hit' || c.status === 'built' || c.status === 'rebuilt') {
    try {
      const bytes = readShared(c.path);
      if (layoutOf(Buffer.from(bytes)).meta.key === key) return { bytes, paths, key };
    } catch {
      // replaced or removed since it was loaded: encode the recording in memory instead (below)
    }
  }
  const encoded = encodePreparedCache(recording, paths, key, version);
  const bytes = new SharedArrayBuffer(encoded.length);
  new Uint8Array(bytes).set(encoded);
  return { bytes, paths, key };
}

/** A worker's side: the recording, from the shared bytes alone (no file read, no hash). */
export function openSharedRecording(s: SharedRecording): Recording {
  const { meta, floats, ints, tags, strings, shapes } = layoutOf(Buffer.from(s.bytes));
  if (meta.key !== s.key || meta.files.length !== s.paths.length) throw corrupt('describes another recording than the sweep loaded');
  const lines = decodeTree({ floats, ints, tags, strings: JSON.parse(strings) as string[], shapes: JSON.parse(shapes) as string[][] });
  if (!Array.isArray(lines)) throw corrupt('holds no record lines');
  const files = replayOrder(meta.files.map((f, i) => ({ path: s.paths[i]!, sha256: f.sha256, header: f.header })));
  const fb = meta.firstBad;
  const firstBad = fb === null ? undefined : fb[0] >= 0 && files[fb[0]] ? `${files[fb[0]]!.path}: ${fb[1]}` : fb[1];
  return { files, lines: lines as RecordLine[], badLines: meta.badLines, firstBad };
}
