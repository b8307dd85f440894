/**
 * The prepared cache of a recording: the parsed record lines of a set of recording files, stored
 * in a compact binary file (prepared-codec.ts) so that later runs and sweep cells skip gunzip,
 * the line split and `JSON.parse`. It is built on first use and lives in `.chainpilot-cache/` next
 * to the (first) recording file, one file per set of recording file names.
 *
 * A cache is used only when everything checks: magic and cache format, byte order, the sha256 of
 * its body, its recorded key (sha256 of the cache format, the chainpilot version and the sha256 of
 * every recording file's bytes as they are now, in order) and a clean decode. Anything else (a
 * recording that changed, another chainpilot version, a truncated or altered file) makes it
 * rebuilt from the recording, never trusted. Writing it is best effort: a directory that cannot be
 * written leaves the run on the parsed recording (status `unwritable`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { ChainpilotError } from '../../core/index.js';
import type { RecordingHeader, RecordLine } from './recording-format.js';
import { parseRecordingFiles, readRecordingFile, recordingPaths, replayOrder, type Recording } from './recording-reader.js';
import { decodeTree, encodeTree, type EncodedTree } from './prepared-codec.js';

/** Bumped whenever the cache layout or the record lines it holds change shape. */
export const PREPARED_CACHE_FORMAT = 3;

const MAGIC = Buffer.from('CPREPLAY', 'latin1');
const HEADER_BYTES = 72;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
export const CACHE_DIR_NAME = '.chainpilot-cache';

export interface PreparedCacheOptions {
  /** The running chainpilot's version: a cache written by another version is rebuilt. */
  readonly version: string;
  /** Directory of the cache files (default: `.chainpilot-cache` next to the first recording file). */
  readonly dir?: string;
}

/**
 * `hit`: replayed from the cache; `built`: there was none, it was written; `rebuilt`: there was one
 * but it did not check (`reason` says why), it was replaced; `unwritable`: no usable cache and
 * none could be written (`reason`), the recording was parsed.
 */
export type PreparedCacheStatus = 'hit' | 'built' | 'rebuilt' | 'unwritable';

export interface PreparedRecording {
  readonly recording: Recording;
  readonly cache: { readonly path: string; readonly status: PreparedCacheStatus; readonly reason?: string };
}

interface CacheMeta {
  readonly key: string;
  readonly chainpilot: string;
  /** Per recording file, in name order. */
  readonly files: readonly { readonly sha256: string; readonly header: RecordingHeader }[];
  readonly badLines: number;
  /** Index (replay order) of the file of the first bad line, and the message after its path. */
  readonly firstBad: readonly [number, string] | null;
}

const sha256 = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

/** The key a cache must carry to be used for recording files with these hashes (in name order). */
export function preparedCacheKey(fileSha256s: readonly string[], version: string): string {
  return sha256(JSON.stringify({ format: PREPARED_CACHE_FORMAT, chainpilot: version, files: fileSha256s }));
}

/** Where the cache of these recording files (in name order) lives. */
export function preparedCachePath(paths: readonly string[], dir?: string): string {
  const d = dir ?? join(dirname(paths[0] ?? '.'), CACHE_DIR_NAME);
  return join(d, `${sha256(paths.map((p) => basename(p)).join('\n')).slice(0, 32)}.cpreplay`);
}

/** Serialises a parsed recording and its key into the cache file's bytes. */
export function encodePreparedCache(recording: Recording, namesInOrder: readonly string[], key: string, version: string): Buffer {
  const byPath = new Map(recording.files.map((f) => [f.path, f]));
  let firstBad: [number, string] | null = null;
  if (recording.firstBad !== undefined) {
    const fb = recording.firstBad;
    const i = recording.files.findIndex((f) => fb.startsWith(`${f.path}: `));
    firstBad = i < 0 ? [-1, fb] : [i, fb.slice(recording.files[i]!.path.length + 2)];
  }
  const meta: CacheMeta = {
    key,
    chainpilot: version,
    badLines: recording.badLines,
    firstBad,
    files: namesInOrder.map((p) => {
      const f = byPath.get(p);
      if (!f) throw new ChainpilotError('CORE_INVALID_ARGUMENT', `prepared cache: ${p} is not part of the recording`, { retry: 'not_retryable' });
      return { sha256: f.sha256, header: f.header };
    }),
  };
  const tree = encodeTree(recording.lines);
  const metaBuf = Buffer.from(JSON.stringify(meta), 'utf8');
  const stringsBuf = Buffer.from(JSON.stringify(tree.strings), 'utf8');
  const shapesBuf = Buffer.from(JSON.stringify(tree.shapes), 'utf8');
  const floatBytes = tree.floats.length * 8;
  const intBytes = tree.ints.length * 4;
  const total = HEADER_BYTES + floatBytes + intBytes + tree.tags.length + metaBuf.length + stringsBuf.length + shapesBuf.length;
  const out = Buffer.alloc(total);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(PREPARED_CACHE_FORMAT, 8);
  out.writeUInt32LE(LITTLE_ENDIAN ? 1 : 0, 12);
  const counts = [tree.floats.length, tree.ints.length, tree.tags.length, metaBuf.length, stringsBuf.length, shapesBuf.length];
  counts.forEach((n, i) => out.writeUInt32LE(n, 48 + i * 4));
  let at = HEADER_BYTES;
  out.set(new Uint8Array(tree.floats.buffer, tree.floats.byteOffset, floatBytes), at);
  at += floatBytes;
  out.set(new Uint8Array(tree.ints.buffer, tree.ints.byteOffset, intBytes), at);
  at += intBytes;
  for (const b of [tree.tags, metaBuf, stringsBuf, shapesBuf]) {
    out.set(b, at);
    at += b.length;
  }
  createHash('sha256').update(out.subarray(HEADER_BYTES)).digest().copy(out, 16);
  return out;
}

/**
 * Decodes the cache file's bytes for recording files `current` (path and sha256 in name order).
 * Returns the recording, or why the cache cannot be used.
 */
export function decodePreparedCache(
  bytes: Buffer,
  current: readonly { readonly path: string; readonly sha256: string }[],
  key: string,
  version: string,
): Recording | string {
  if (bytes.length < HEADER_BYTES || !bytes.subarray(0, 8).equals(MAGIC)) return 'not a prepared cache file';
  const format = bytes.readUInt32LE(8);
  if (format !== PREPARED_CACHE_FORMAT) return `cache format ${format}, this chainpilot writes ${PREPARED_CACHE_FORMAT}`;
  if ((bytes.readUInt32LE(12) === 1) !== LITTLE_ENDIAN) return 'written on a machine of the other byte order';
  const [nFloats, nInts, nTags, metaLen, stringsLen, shapesLen] = [0, 1, 2, 3, 4, 5].map((i) => bytes.readUInt32LE(48 + i * 4)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (HEADER_BYTES + nFloats * 8 + nInts * 4 + nTags + metaLen + stringsLen + shapesLen !== bytes.length)
    return 'truncated or padded (section lengths do not add up to its size)';
  if (!createHash('sha256').update(bytes.subarray(HEADER_BYTES)).digest().equals(bytes.subarray(16, 48))) return 'corrupt (body checksum mismatch)';
  // Typed-array views need aligned offsets: copy when the file's buffer is not 8-aligned.
  let b = bytes;
  if (b.byteOffset % 8 !== 0) {
    const copy = new ArrayBuffer(bytes.length);
    new Uint8Array(copy).set(bytes);
    b = Buffer.from(copy);
  }
  let at = b.byteOffset + HEADER_BYTES;
  const floats = new Float64Array(b.buffer, at, nFloats);
  at += nFloats * 8;
  const ints = new Int32Array(b.buffer, at, nInts);
  at += nInts * 4;
  const tags = new Uint8Array(b.buffer, at, nTags);
  let off = HEADER_BYTES + nFloats * 8 + nInts * 4 + nTags;
  const text = (n: number): string => b.toString('utf8', off, (off += n));
  let meta: CacheMeta;
  let tree: EncodedTree;
  let lines: unknown;
  try {
    meta = JSON.parse(text(metaLen)) as CacheMeta;
    if (meta.key !== key)
      return meta.chainpilot !== version
        ? `written by chainpilot ${meta.chainpilot}, this is ${version}`
        : 'stale (the recording files changed since it was built)';
    tree = { floats, ints, tags, strings: JSON.parse(text(stringsLen)) as string[], shapes: JSON.parse(text(shapesLen)) as string[][] };
    lines = decodeTree(tree);
  } catch (e) {
    return `corrupt (${e instanceof Error ? e.message : String(e)})`;
  }
  if (!Array.isArray(lines) || meta.files.length !== current.length || meta.files.some((f, i) => f.sha256 !== current[i]!.sha256))
    return 'stale (it describes other recording files)';
  const files = replayOrder(meta.files.map((f, i) => ({ path: current[i]!.path, sha256: f.sha256, header: f.header })));
  const fb = meta.firstBad;
  const firstBad = fb === null ? undefined : fb[0] >= 0 && files[fb[0]] ? `${files[fb[0]]!.path}: ${fb[1]}` : fb[1];
  return { files, lines: lines as RecordLine[], badLines: meta.badLines, firstBad };
}

/**
 * Reads the recording of `spec` through its prepared cache: the cache when it checks, otherwise
 * the recording files (parsed once) and a new cache written for next time.
 */
export function readRecordingPrepared(spec: string | readonly string[], o: PreparedCacheOptions): PreparedRecording {
  const paths = recordingPaths(spec);
  const raw = paths.map((p) => readFileSync(p));
  const current = paths.map((path, i) => ({ path, sha256: sha256(raw[i]!) }));
  const key = preparedCacheKey(
    current.map((c) => c.sha256),
    o.version,
  );
  const path = preparedCachePath(paths, o.dir);
  let rejected: string | undefined;
  let bytes: Buffer | undefined;
  try {
    bytes = readFileSync(path);
  } catch {
    bytes = undefined;
  }
  if (bytes) {
    const r = decodePreparedCache(bytes, current, key, o.version);
    if (typeof r !== 'string') return { recording: r, cache: { path, status: 'hit' } };
    rejected = r;
  }
  const recording = parseRecordingFiles(paths.map((p, i) => readRecordingFile(p, raw[i])));
  const tmp = `${path}.${process.pid}-${threadId}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    const out = encodePreparedCache(recording, paths, key, o.version);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, out);
    renameSync(tmp, path); // atomic: a concurrent reader sees the old file or the new one, never half
  } catch (e) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // the directory refuses writes: there is no temporary file to remove
    }
    const why = e instanceof Error ? e.message : String(e);
    return { recording, cache: { path, status: 'unwritable', reason: rejected ? `${rejected}; and ${why}` : why } };
  }
  return { recording, cache: rejected ? { path, status: 'rebuilt', reason: rejected } : { path, status: 'built' } };
}
