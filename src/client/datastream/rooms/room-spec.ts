/**
 * What the client knows about a room from its name alone, as a plain summary of its registry
 * entry (room-registry.ts): family, list payload, delivery, dedup, commitment and backfill scope.
 */
import { resolveRoom } from './room-registry.js';
import type { BackfillScope, FamilyName } from './room-family.js';

export type { BackfillScope };
/** A room family's name (`launch`, `transaction`, `safety`, ...). */
export type RoomFamilyName = FamilyName;

export interface RoomSpec {
  readonly room: string;
  readonly family: FamilyName;
  /** Payload is a list of events (liquidity and transaction rooms; a single event is accepted too). */
  readonly rows: boolean;
  /** Price-like: a slow consumer sees only the latest value. */
  readonly coalesce: boolean;
  /** Events are deduplicated across overlapping rooms (by the family's identity fields). */
  readonly dedup: boolean;
  /** Live events are provisional (processed commitment). */
  readonly provisional: boolean;
  readonly backfill?: BackfillScope;
}

/** Classifies a room name. Unknown rooms are accepted as open-object rooms of family `unknown`. */
export function roomSpec(room: string): RoomSpec {
  const r = resolveRoom(room);
  const f = r.family;
  return {
    room,
    family: f.name,
    rows: f.rows,
    coalesce: f.delivery === 'coalesced',
    dedup: f.identity !== undefined,
    provisional: f.provisional,
    ...(r.backfill ? { backfill: r.backfill } : {}),
  };
}
