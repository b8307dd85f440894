/**
 * The prepared cache of a recording: its prepared form (prepared-recording.ts) in a file, so that
 * later runs and sweep cells skip gunzip, the line split, `JSON.parse`, the client's guard and the
 * normaliser. It is built on first use and lives in `.chainpilot-cache/` next to the (first)
 * recording file, one file per set of recording file names.
 *
 * A cache is used only when everything checks: magic and prepared format, byte order, the section
 * table, the sha256 of its body, its recorded key (sha256 of the prepared format, the chainpilot
 * version and the sha256 of every recording file's bytes as they are now, in order). Anything else
 * (a recording that changed, another chainpilot version, a truncated or altered file) makes it
 * rebuilt from the recording, never trusted. Writing it is best effort: a directory that cannot be
 * written leaves the run on the prepared form built in memory (status `unwritable`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { createPreparedBuilder } from './prepared-builder.js';
import { openPrepared, PREPARED_BODY_AT, PREPARED_FORMAT, preparedProblem, type Recording } from './prepared-recording.js';
import { hashFile } from './recording-file.js';
import { forEachRecordLine, readRecordingFile, recordingPaths, replayOrder, type ParsedRecording, type RecordingFile } from './recording-reader.js';

/** The cache's format is the prepared form's. */
export const PREPARED_CACHE_FORMAT = PREPARED_FORMAT;
export const CACHE_DIR_NAME = '.chainpilot-cache';

export interface PreparedCacheOptions {
  /** The running chainpilot's version: a cache written by another version is rebuilt. */
  readonly version: string;
  /** Directory of the cache files (default: `.chainpilot-cache` next to the first recording file). */
  readonly dir?: string;
  /** Hold the prepared bytes in a SharedArrayBuffer (to hand to worker threads as they are). */
  readonly shared?: boolean;
}

/**
 * `hit`: replayed from the cache; `built`: there was none, it was written; `rebuilt`: there was one
 * but it did not check (`reason` says why), it was replaced; `unwritable`: no usable cache and
 * none could be written (`reason`), the recording was prepared in memory.
 */
export type PreparedCacheStatus = 'hit' | 'built' | 'rebuilt' | 'unwritable';

export interface PreparedRecording {
  readonly recording: Recording;
  readonly cache: { readonly path: string; readonly status: PreparedCacheStatus; readonly reason?: string };
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

/**
 * The prepared form of recording files already read: each file's text is split and parsed a line at
 * a time into the builder (no array of parsed lines). `key`/`version` go into its meta for the cache.
 */
export function prepareFiles(
  read: readonly RecordingFile[],
  o: { readonly key?: string; readonly version?: string; readonly shared?: boolean } = {},
): Uint8Array {
  const b = createPreparedBuilder();
  const files = replayOrder(read);
  const { badLines, firstBad } = forEachRecordLine(files, (l) => b.add(l));
  return b.finish(
    files.map((f) => ({ path: f.path, sha256: f.sha256, header: f.header })),
    badLines,
    firstBad,
    { key: o.key, chainpilot: o.version },
    o.shared ?? false,
  );
}

const fromParsed = new WeakMap<ParsedRecording, Recording>();

/** The prepared form of parsed lines (`readRecording`'s), built once per parsed recording. */
export function preparedFromParsed(parsed: ParsedRecording): Recording {
  let r = fromParsed.get(parsed);
  if (r === undefined) {
    const b = createPreparedBuilder();
    for (const l of parsed.lines) b.add(l);
    r = openPrepared(b.finish(parsed.files, parsed.badLines, parsed.firstBad, {}));
    fromParsed.set(parsed, r);
  }
  return r;
}

/** Puts the body's sha256 in place (bytes 16..48). */
function seal(bytes: Uint8Array): void {
  bytes.set(createHash('sha256').update(bytes.subarray(PREPARED_BODY_AT)).digest(), 16);
}

function toShared(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  out.set(bytes);
  return out;
}

/** Opens cache bytes for recording files `current` (path and sha256 in name order), or says why it cannot be used. */
export function openPreparedCache(
  bytes: Uint8Array,
  current: readonly { readonly path: string; readonly sha256: string }[],
  key: string,
  version: string,
): Recording | string {
  const problem = preparedProblem(bytes);
  if (problem !== undefined) return problem;
  if (!Buffer.from(createHash('sha256').update(bytes.subarray(PREPARED_BODY_AT)).digest()).equals(bytes.subarray(16, 48)))
    return 'corrupt (body checksum mismatch)';
  let r: Recording;
  try {
    r = openPrepared(bytes);
  } catch (e) {
    return `corrupt (${e instanceof Error ? e.message : String(e)})`;
  }
  if (r.meta.key !== key)
    return r.meta.chainpilot !== version
      ? `written by chainpilot ${r.meta.chainpilot ?? '?'}, this is ${version}`
      : 'stale (the recording files changed since it was built)';
  const bySha = new Map(current.map((c) => [c.sha256, c.path]));
  if (r.files.length !== current.length || r.files.some((f) => !bySha.has(f.sha256))) return 'stale (it describes other recording files)';
  // the files where they are now (the cache is found by their names)
  const files = r.files.map((f) => ({ ...f, path: bySha.get(f.sha256)! }));
  const moved = r.firstBad !== undefined ? r.files.find((f) => r.firstBad!.startsWith(`${f.path}: `)) : undefined;
  const firstBad = moved && r.firstBad !== undefined ? `${bySha.get(moved.sha256)!}${r.firstBad.slice(moved.path.length)}` : r.firstBad;
  return { ...r, files, firstBad };
}

/**
 * Reads the recording of `spec` through its prepared cache: the cache when it checks, otherwise
 * the recording files (read and prepared once) and a new cache written for next time.
 */
export function readRecordingPrepared(spec: string | readonly string[], o: PreparedCacheOptions): PreparedRecording {
  const paths = recordingPaths(spec);
  // hashed a chunk at a time: on a hit the recording's bytes are never held in memory
  const current = paths.map((path) => ({ path, sha256: hashFile(path) }));
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
    const r = openPreparedCache(o.shared ? toShared(bytes) : bytes, current, key, o.version);
    if (typeof r !== 'string') return { recording: r, cache: { path, status: 'hit' } };
    rejected = r;
  }
  const out = prepareFiles(
    paths.map((p) => readRecordingFile(p)),
    { key, version: o.version, shared: o.shared ?? false },
  );
  seal(out);
  const recording = openPrepared(out);
  const tmp = `${path}.${process.pid}-${threadId}-${randomBytes(4).toString('hex')}.tmp`;
  try {
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

/** The recording of `spec` prepared in memory, nothing written (`--no-cache` sweeps). */
export function prepareRecording(spec: string | readonly string[], shared = false): Recording {
  return openPrepared(
    prepareFiles(
      recordingPaths(spec).map((p) => readRecordingFile(p)),
      { shared },
    ),
  );
}
