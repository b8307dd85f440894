/**
 * The room registry: one entry per room family (families/*.ts). A room name resolves to its
 * family once, when it is first subscribed; every frame of that room is then parsed once by the
 * family's guard into a typed value, deduplicated by the family's identity fields, and delivered
 * as the family says (queued or coalesced). The engine maps the typed payloads to domain events
 * (src/engine/events/normalise.ts) without looking at wire data again. Adding a room family = one entry
 * here (and its mapping, which the compiler asks for) and its tests.
 */
import type { UnixMs } from '../../../core/index.js';
import { fpCheck, fpKey, fpResume, fpStart, fpState, fpStr } from '../dedup/fingerprint.js';
import { dcaFamily, pnlFamily, pnlSummaryFamily, unknownFamily } from './families/account-families.js';
import { aggregatedPriceFamily, cryptoFamily, predictionFamily, priceFamily, statsFamily } from './families/market-families.js';
import { safetyFamily } from './families/safety-family.js';
import { curveFamily, graduatedFamily, graduatingFamily, launchFamily } from './families/token-families.js';
import { liquidityFamily, transactionFamily } from './families/trade-families.js';
import type { BackfillScope, FamilyItems, FamilyName, FamilyPayloads, RoomFamily, RoomName } from './room-family.js';
import type { DatastreamMessage } from '../stream-message.js';

/** Every family, in lookup order (the first whose pattern matches wins; `unknown` is last). */
export const ROOM_FAMILIES: readonly RoomFamily[] = [
  launchFamily,
  graduatingFamily,
  graduatedFamily,
  curveFamily,
  liquidityFamily,
  transactionFamily,
  safetyFamily,
  priceFamily,
  aggregatedPriceFamily,
  statsFamily,
  pnlSummaryFamily,
  pnlFamily,
  dcaFamily,
  predictionFamily,
  cryptoFamily,
  unknownFamily,
] as readonly RoomFamily[];

/** A room name resolved to its family, with what the hot path needs precomputed. */
export interface ResolvedRoom {
  readonly name: RoomName;
  readonly family: RoomFamily;
  /** The dedup scope (family and scope) mixed into every fingerprint of the room. */
  readonly scopeKey: string;
  /** Fingerprint state after the scope, precomputed (the hot path resumes from it). */
  readonly seed1: number;
  readonly seed2: number;
  readonly backfill: BackfillScope | undefined;
}

/**
 * A flat copy of `s`. V8 returns a long substring (`split`, `slice`) as a view into its parent
 * string, and comparing a frame's string with such a view takes about 35 ns more than with a flat
 * string: the swap guard compares each side's mint with the room's token segment. V8 copies a
 * substring shorter than `SLICE_MIN_LENGTH` (its SlicedString::kMinLength) instead: flat already.
 */
const SLICE_MIN_LENGTH = 13;
const flat = (s: string): string => (s.length < SLICE_MIN_LENGTH ? s : (JSON.parse(JSON.stringify(s)) as string));

/** Resolved rooms by name: a room is resolved once per process (a sweep's cells and a restarted feed join the same rooms again). */
const resolvedRooms = new Map<string, ResolvedRoom>();
export const RESOLVED_ROOMS_MAX = 20_000;

/** Splits a room name (dropping `:enriched`) and finds its family (remembered: a resolved room never changes). */
export function resolveRoom(room: string): ResolvedRoom {
  let r = resolvedRooms.get(room);
  if (r === undefined) {
    // bounded by forgetting the oldest resolved room (a Map iterates in insertion order), never all at once: a 24 h
    // replay joins about 28,000 rooms, and a clear made every room in use resolve (and allocate) again
    if (resolvedRooms.size >= RESOLVED_ROOMS_MAX) resolvedRooms.delete(resolvedRooms.keys().next().value as string);
    // a room resolved here is used for every frame of a subscription: its segments are copied flat once
    resolvedRooms.set(room, (r = resolve(room, true)));
  }
  return r;
}

function resolve(room: string, flatSegments: boolean): ResolvedRoom {
  const split = room.split(':');
  const all = flatSegments ? split.map(flat) : split;
  const enriched = all.length > 1 && all[all.length - 1] === 'enriched';
  const parts = enriched ? all.slice(0, -1) : all;
  const name: RoomName = { room, parts, enriched };
  const family = ROOM_FAMILIES.find((f) => f.match(parts)) ?? (unknownFamily as RoomFamily);
  const scopeKey = `${family.name}|${family.scope(name)}`;
  fpStart();
  fpStr(scopeKey);
  const [seed1, seed2] = fpState();
  return { name, family, scopeKey, seed1, seed2, backfill: family.backfill?.(name) };
}

/** The family of a room name. */
export function familyOf(room: string): FamilyName {
  return resolveRoom(room).family.name;
}

/** Rows of a row family's payload: an array as sent, or a single event wrapped. */
export function rowsOf(data: unknown): readonly unknown[] {
  return Array.isArray(data) ? data : [data];
}

/** Parsed rows of a row payload: the valid ones, the count and first reason of the rejected ones. */
export interface ParsedRows {
  readonly items: unknown[];
  readonly rejected: number;
  readonly firstReason: string | undefined;
}

/** Parses every row with the family's guard; one bad row does not lose its valid neighbours. */
export function parseRows(r: ResolvedRoom, data: unknown): ParsedRows {
  const arr = Array.isArray(data) ? (data as unknown[]) : undefined;
  const rows = arr ?? [data];
  // the wire array itself while every row parses to itself (liquidity events): no copy
  let items: unknown[] | undefined = arr === undefined ? [] : undefined;
  let rejected = 0;
  let firstReason: string | undefined;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const v = r.family.parse(row, r.name);
    if (typeof v === 'string') {
      if (rejected++ === 0) firstReason = arr !== undefined ? `[${i}] ${v}` : v;
      items ??= rows.slice(0, i);
    } else if (items !== undefined) items.push(v);
    else if (v !== row) {
      items = rows.slice(0, i);
      items.push(v);
    }
  }
  return { items: items ?? rows, rejected, firstReason };
}

/** Fingerprint `[key, check]` of one item in the room's dedup scope (the family must have an identity). */
export function fingerprintOf(r: ResolvedRoom, item: unknown): [number, number] {
  fingerprintInto(r, item);
  return [fpKey(), fpCheck()];
}

/** Leaves the fingerprint of `item` in the current state (read it with `fpKey`/`fpCheck`): no allocation. */
export function fingerprintInto(r: ResolvedRoom, item: unknown): void {
  fpResume(r.seed1, r.seed2);
  (r.family.identity as (i: unknown, n: RoomName) => void)(item, r.name);
}

/**
 * Parses one room payload outside a live connection (replays of recordings, tests): the typed
 * message, or the reason it was rejected. Row payloads keep their valid rows.
 */
export function parseRoomMessage(
  room: string,
  data: unknown,
  receivedAt: UnixMs,
  origin: 'live' | 'backfill' = 'live',
):
  | { readonly ok: true; readonly message: DatastreamMessage; readonly rejected: number; readonly reason?: string }
  | { readonly ok: false; readonly reason: string } {
  const r = resolve(room, false); // one payload: copying the segments flat would cost more than it saves
  const commitment = origin === 'backfill' ? 'confirmed' : r.family.provisional ? 'processed' : 'unspecified';
  if (r.family.rows) {
    const p = parseRows(r, data);
    if (p.items.length === 0) return { ok: false, reason: p.firstReason ?? 'no events' };
    const message = { room, family: r.family.name, data: p.items, receivedAt, origin, commitment } as DatastreamMessage;
    return p.firstReason === undefined ? { ok: true, message, rejected: 0 } : { ok: true, message, rejected: p.rejected, reason: p.firstReason };
  }
  const v = r.family.parse(data, r.name);
  if (typeof v === 'string') return { ok: false, reason: v };
  return { ok: true, message: { room, family: r.family.name, data: v, receivedAt, origin, commitment } as DatastreamMessage, rejected: 0 };
}

export type { FamilyItems, FamilyName, FamilyPayloads, RoomFamily, RoomName, BackfillScope };
