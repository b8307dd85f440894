/** The silent rooms of a finished backtest, sorted into loud kinds and quiet rooms (see report/silent-rooms.ts). */
import { classifySilentRooms, kindsOf, type SilentRooms } from '../report/silent-rooms.js';
import type { RecordingHeader } from '../replay/recording-format.js';

/** What of a recording the classification reads (a prepared `Recording` is one). */
export interface RecordedRooms {
  readonly files: readonly { readonly header: RecordingHeader }[];
  readonly recordedRooms: ReadonlySet<string>;
}

const recordedKinds = new WeakMap<ReadonlySet<string>, ReadonlySet<string>>();

/** Classifies `silent` (rooms joined with no frame) against what `recording` holds and what its headers declare. */
export function silentRoomsOf(silent: readonly string[], recording: RecordedRooms): SilentRooms {
  let kinds = recordedKinds.get(recording.recordedRooms);
  if (!kinds) recordedKinds.set(recording.recordedRooms, (kinds = kindsOf(recording.recordedRooms)));
  // rooms a recording was given at its start were recorded from the start: silent there means silent
  const covered = recording.files.flatMap((f) => [...(f.header.covered ?? []), ...f.header.rooms]);
  const absent = recording.files.flatMap((f) => f.header.absent ?? []);
  return classifySilentRooms(silent, kinds, { covered, absent });
}
