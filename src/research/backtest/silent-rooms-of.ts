/** The silent rooms of a finished backtest, sorted into loud kinds and quiet rooms (see report/silent-rooms.ts). */
import { classifySilentRooms, kindsOf, type SilentRooms } from '../report/silent-rooms.js';
import type { Recording } from '../replay/recording-reader.js';
import { recordedRoomsOf } from '../replay/replay-feed.js';

const recordedKinds = new WeakMap<Recording['lines'], ReadonlySet<string>>();

/** Classifies `silent` (rooms joined with no frame) against what `recording` holds and what its headers declare. */
export function silentRoomsOf(silent: readonly string[], recording: Recording): SilentRooms {
  let kinds = recordedKinds.get(recording.lines);
  if (!kinds) recordedKinds.set(recording.lines, (kinds = kindsOf(recordedRoomsOf(recording.lines))));
  // rooms a recording was given at its start were recorded from the start: silent there means silent
  const covered = recording.files.flatMap((f) => [...(f.header.covered ?? []), ...f.header.rooms]);
  const absent = recording.files.flatMap((f) => f.header.absent ?? []);
  return classifySilentRooms(silent, kinds, { covered, absent });
}
