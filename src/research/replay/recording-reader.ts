/**
 * Reads recordings: `--data FILE | DIR | GLOB` becomes the files (a glob may use `*` and `?` in its
 * last path segment), each gunzipped when it ends in `.gz`, its header checked, and its lines
 * parsed once. Parts and recordings are replayed in the order of their headers' start times.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ChainpilotError } from '../../core/index.js';
import { parseRecordLine, RECORDING_FORMAT, type RecordingHeader, type RecordLine } from './recording-format.js';

/** The prepared recording a backtest replays (prepared-recording.ts). */
export type { Recording } from './prepared-recording.js';

/** A recording file; not the decision log `record` writes beside it (`PREFIX.decisions.jsonl`). */
const RECORDING_FILE = /^(?!.*\.decisions\.jsonl$).*\.jsonl(\.gz)?$/;

/** The recording files that `spec` names, sorted by name. Throws RECORDING_NOT_FOUND when none. */
export function resolveRecordingFiles(spec: string): string[] {
  let files: string[];
  if (/[*?]/.test(spec)) {
    const dir = dirname(spec);
    const re = new RegExp(
      `^${basename(spec)
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
    );
    files = existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => re.test(f) && RECORDING_FILE.test(f))
          .map((f) => join(dir, f))
      : [];
  } else if (existsSync(spec) && statSync(spec).isDirectory()) {
    files = readdirSync(spec)
      .filter((f) => RECORDING_FILE.test(f))
      .map((f) => join(spec, f));
  } else {
    files = existsSync(spec) ? [spec] : [];
  }
  if (files.length === 0) {
    throw new ChainpilotError(
      'RECORDING_NOT_FOUND',
      `--data ${spec}: no recording file there; give a .jsonl or .jsonl.gz file, a directory of them, or a glob such as "recordings/*.jsonl.gz"`,
      { retry: 'not_retryable', context: { field: 'data' } },
    );
  }
  return files.sort();
}

export interface RecordingFile {
  readonly path: string;
  readonly header: RecordingHeader;
  /** sha256 of the file's bytes as stored. */
  readonly sha256: string;
  /** The decompressed text. */
  readonly text: string;
}

/** Reads (unless its bytes are given), decompresses and checks the header of one file. */
export function readRecordingFile(path: string, raw: Buffer = readFileSync(path)): RecordingFile {
  const sha256 = createHash('sha256').update(raw).digest('hex');
  const text = (path.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
  const nl = text.indexOf('\n');
  let header: RecordingHeader | undefined;
  try {
    const h = JSON.parse(nl < 0 ? text : text.slice(0, nl)) as RecordingHeader;
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks parsed JSON at runtime
    if (h.k === 'header') header = h;
  } catch {
    header = undefined;
  }
  if (!header) {
    throw new ChainpilotError(
      'RECORDING_INVALID',
      `${path}: the first line is not a recording header; record with \`chainpilot record\` or a deployment's record: option`,
      { retry: 'not_retryable', context: { path } },
    );
  }
  if (header.format !== RECORDING_FORMAT) {
    throw new ChainpilotError('RECORDING_INVALID', `${path}: recording format ${header.format}, this chainpilot reads format ${RECORDING_FORMAT}`, {
      retry: 'not_retryable',
      context: { path },
    });
  }
  return { path, header, sha256, text };
}

/** A recording parsed into line objects (`readRecording`: tests and tools; a backtest streams or prepares instead). */
export interface ParsedRecording {
  readonly files: readonly { readonly path: string; readonly sha256: string; readonly header: RecordingHeader }[];
  readonly lines: readonly RecordLine[];
  /** Lines that were not records (a truncated last line after a crash, for example). */
  readonly badLines: number;
  readonly firstBad: string | undefined;
}

/** Every recording file that `spec` names (one spec or several), in name order within each. */
export function recordingPaths(spec: string | readonly string[]): string[] {
  return (typeof spec === 'string' ? [spec] : spec).flatMap(resolveRecordingFiles);
}

/** Replay order of recording files: by their headers' start times, then part, then path. */
export function replayOrder<F extends { readonly path: string; readonly header: RecordingHeader }>(files: readonly F[]): F[] {
  return [...files].sort((a, b) => a.header.startedAt - b.header.startedAt || a.header.part - b.header.part || (a.path < b.path ? -1 : 1));
}

/** Reads every file of `spec` in time order and parses its lines. */
export function readRecording(spec: string | readonly string[]): ParsedRecording {
  return parseRecordingFiles(recordingPaths(spec).map((p) => readRecordingFile(p)));
}

/**
 * Parses every record line of `files` (in the order given, each file's header line skipped) and hands
 * each to `take`; a line that is not a record (or that `take` throws for) is counted, and the first one described.
 */
export function forEachRecordLine(files: readonly RecordingFile[], take: (line: RecordLine) => void): { badLines: number; firstBad: string | undefined } {
  let badLines = 0;
  let firstBad: string | undefined;
  for (const f of files) {
    const text = f.text;
    let start = text.indexOf('\n') + 1;
    while (start > 0 && start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      if (end > start) {
        const line = text.slice(start, end);
        try {
          take(parseRecordLine(line));
        } catch (e) {
          badLines++;
          firstBad ??= `${f.path}: ${e instanceof Error ? e.message : String(e)}: ${line.slice(0, 120)}`;
        }
      }
      start = end + 1;
    }
  }
  return { badLines, firstBad };
}

/** Parses the lines of files already read, in replay order. */
export function parseRecordingFiles(read: readonly RecordingFile[]): ParsedRecording {
  const files = replayOrder(read);
  const lines: RecordLine[] = [];
  const { badLines, firstBad } = forEachRecordLine(files, (l) => lines.push(l));
  return { files: files.map((f) => ({ path: f.path, sha256: f.sha256, header: f.header })), lines, badLines, firstBad };
}
