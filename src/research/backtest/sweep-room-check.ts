/**
 * Before a sweep runs any cell: the rooms each starting cell's strategies join at start (their
 * definitions' `rooms(params)`) that are of a kind the recording never holds (a curve milestone it was
 * not made at, a room family its header declares absent). Such a cell would decide blind there, so
 * `chainpilot sweep` warns first, one line per missing kind, naming the cells that need it.
 */
import type { StrategyInstance } from '../../engine/strategy/strategy-instance.js';
import type { Recording } from '../replay/recording-reader.js';
import { recordedRoomsOf } from '../replay/replay-feed.js';
import { silentRoomsOf } from './silent-rooms-of.js';
import type { SweepCell } from './sweep-grid.js';

/** A starting cell and the strategies it resolved to. */
export interface CellStrategies {
  readonly cell: SweepCell;
  readonly strategies: readonly StrategyInstance[];
}

const WHY = { absent: 'the recording says it cannot hold it', missing: 'no frame of this kind in the recording' } as const;

/** Shown cells per warning line; the rest are counted. */
const SHOWN = 3;

/**
 * The rooms a strategy joins at start. A `rooms()` that throws for these parameters joins nothing
 * here: running the cell meets the same throw and stops the sweep with BACKTEST_CELL_FAILED naming
 * the cell, so the warning pass leaves the report of it to that run.
 */
function startRooms(s: StrategyInstance): readonly string[] {
  try {
    return s.definition.rooms?.(s.params) ?? [];
  } catch {
    return [];
  }
}

/** One line per room kind some starting cell joins at start and the recording never holds (empty when none). */
export function missingRoomWarnings(cells: readonly CellStrategies[], recording: Recording): string[] {
  const recorded = recordedRoomsOf(recording);
  const byKind = new Map<string, { why: 'absent' | 'missing'; cells: SweepCell[] }>();
  for (const { cell, strategies } of cells) {
    const rooms = strategies.flatMap(startRooms).filter((r) => !recorded.has(r));
    for (const k of silentRoomsOf(rooms, recording).kinds) {
      let entry = byKind.get(k.kind);
      if (!entry) byKind.set(k.kind, (entry = { why: k.why, cells: [] }));
      entry.cells.push(cell);
    }
  }
  return [...byKind]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([kind, e]) => {
      const shown = e.cells.slice(0, SHOWN).map((c) => `cell ${c.index} ${JSON.stringify(c.params)}`);
      const more = e.cells.length > SHOWN ? ` and ${e.cells.length - SHOWN} more` : '';
      return `warning: ${e.cells.length} of ${cells.length} cells join ${kind}, which this recording never holds (${WHY[e.why]}): they will decide blind there: ${shown.join(', ')}${more}`;
    });
}
