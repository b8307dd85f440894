/**
 * One prepared recording for every lane of a sweep. The main thread loads the recording once
 * (through its prepared cache, see backtest-job.ts `loadRecording`, or prepared in memory with
 * `--no-cache`): the prepared form is one buffer of typed-array columns (prepared-recording.ts,
 * format 4). Those bytes go to every worker thread in a SharedArrayBuffer, and each worker opens them
 * with `openPrepared`: it reads no file, hashes nothing and copies no column (the main thread checked
 * the bytes when it loaded them).
 */
import { ChainpilotError } from '../../core/index.js';
import { openPrepared } from '../replay/prepared-recording.js';
import type { Recording } from '../replay/recording-reader.js';

/** What a worker needs to open the sweep's recording: the prepared bytes in shared memory, and which recording they must be. */
export interface SharedRecording {
  /** The prepared form's bytes (offset 0 of the buffer, so every column view is aligned). */
  readonly bytes: SharedArrayBuffer;
  /** The recording files as the main thread loaded them (paths name the files in reports; they are not read). */
  readonly files: Recording['files'];
  /** The files' sha256s, in order: the recording the bytes must hold. */
  readonly key: string;
}

const corrupt = (why: string): ChainpilotError =>
  new ChainpilotError('BACKTEST_RECORDING_MISMATCH', `sweep: the shared prepared recording ${why}`, { retry: 'not_retryable' });

const keyOf = (files: Recording['files']): string => files.map((f) => f.sha256).join(',');

/**
 * The main thread's side: the prepared bytes of a recording it has loaded, in shared memory. They
 * are the loaded buffer itself when it already is a whole SharedArrayBuffer (`loadRecording(…,
 * { shared: true })`), else one copy of it.
 */
export function shareRecording(loaded: { readonly recording: Recording }): SharedRecording {
  const { recording } = loaded;
  const b = recording.bytes;
  let bytes: SharedArrayBuffer;
  if (b.buffer instanceof SharedArrayBuffer && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength) bytes = b.buffer;
  else {
    bytes = new SharedArrayBuffer(b.byteLength);
    new Uint8Array(bytes).set(b);
  }
  return { bytes, files: recording.files, key: keyOf(recording.files) };
}

/** A worker's side: the recording, from the shared bytes alone (no file read, no hash, no copy). */
export function openSharedRecording(s: SharedRecording): Recording {
  let opened: Recording;
  try {
    opened = openPrepared(new Uint8Array(s.bytes));
  } catch (e) {
    throw corrupt(`cannot be opened: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (keyOf(opened.files) !== s.key || opened.files.length !== s.files.length) throw corrupt('describes another recording than the sweep loaded');
  return { ...opened, files: s.files };
}
