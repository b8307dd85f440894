/** What the run's thread and the recording's writing thread (recording-thread.ts) exchange. */
import type { RecordingHeader } from '../replay/recording-format.js';

/** What the run's thread gives the writing thread at start. */
export interface RecordingThreadInit {
  /** Marks the worker as a recording thread (a module loaded elsewhere does nothing). */
  readonly recordingThread: true;
  readonly prefix: string;
  readonly gzip: boolean;
  readonly rotateBytes: number | undefined;
  readonly rotateMs: number | undefined;
  /** The header without its part fields. */
  readonly header: Omit<RecordingHeader, 'part' | 'partStartedAt'>;
  readonly secrets: readonly string[];
}

/** Kinds of a batch entry (`meta` holds `t, rt, kind` per entry). */
export const FRAME = 0;
export const FRAME_NOT_JSON = 1;
export const LINE = 2;
