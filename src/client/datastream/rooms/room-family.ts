/**
 * The shape of one room family in the registry (room-registry.ts): its name pattern, the guard that
 * parses a wire payload once into a typed value, its delivery, its dedup identity and its backfill
 * rule. The engine's mapping of each family to domain events lives in src/engine/events/normalise.ts, in
 * a table typed by `FamilyName`, so a family added here without a mapping does not compile.
 */
import type {
  AggregatedPrice,
  CurveAlert,
  DcaUpdate,
  LiquidityEvent,
  OpenObject,
  PnlUpdate,
  PredictionTick,
  PriceUpdate,
  SafetyPayload,
  StatsPayload,
  TokenGraduated,
  TokenGraduating,
  TokenLaunch,
} from './payloads.js';
import type { SwapTrade } from './families/trade-families.js';

/** Item type per family: the whole payload for object rooms, one event for row rooms. */
export interface FamilyItems {
  launch: TokenLaunch;
  graduating: TokenGraduating;
  graduated: TokenGraduated;
  curve: CurveAlert;
  liquidity: LiquidityEvent;
  transaction: SwapTrade;
  safety: SafetyPayload;
  price: PriceUpdate;
  'aggregated-price': AggregatedPrice;
  stats: StatsPayload;
  pnl: PnlUpdate;
  dca: DcaUpdate;
  prediction: PredictionTick;
  crypto: PredictionTick;
  unknown: OpenObject;
}

export type FamilyName = keyof FamilyItems;

/** Families whose payload is a list of events (an array, or a single event, on the wire). */
export type RowFamilyName = 'liquidity' | 'transaction';

/** What a delivered message's `data` is for each family. */
export type FamilyPayloads = { readonly [F in FamilyName]: F extends RowFamilyName ? readonly FamilyItems[F][] : FamilyItems[F] };

/** A room name split for the guards: `parts` without the `:enriched` suffix. */
export interface RoomName {
  readonly room: string;
  readonly parts: readonly string[];
  readonly enriched: boolean;
}

/** The room name without `:enriched` (a scope of its own): the name itself unless enriched, so resolving a room joins no parts. */
export const wholeRoom = (r: RoomName): string => (r.enriched ? r.parts.join(':') : r.room);

/** The REST history scope that backfills a room (`/trades/{token}[/{pool}][/{wallet}]`). */
export interface BackfillScope {
  readonly token: string;
  readonly pool?: string;
  readonly wallet?: string;
  readonly events: 'all' | 'liquidity';
  /** For `events: 'all'` on a swap room: keep only swap rows. */
  readonly swapsOnly: boolean;
}

/** `queued`: every event in a bounded queue; `coalesced`: a slow consumer sees only the latest value. */
export type Delivery = 'queued' | 'coalesced';

export interface RoomFamily<F extends FamilyName = FamilyName> {
  readonly name: F;
  /** The room names of the family, as documented (`transaction:{token}[:{pool}[:{wallet}]]`). */
  readonly pattern: string;
  /** One room name of the family (tests and docs). */
  readonly example: string;
  /** Whether `parts` (a room name split on `:`, without `:enriched`) belongs to the family. */
  match(parts: readonly string[]): boolean;
  /**
   * Every first segment a room of the family can have (`match` is false for any other), so that
   * resolving a room asks only the families that can match it; absent: asked for every room.
   */
  readonly heads?: readonly string[];
  readonly delivery: Delivery;
  /** Payload is a list of events (arrays and single events are both accepted). */
  readonly rows: boolean;
  /** Live events are provisional (processed commitment). */
  readonly provisional: boolean;
  /** Parses one payload (or one row): the typed value, or a reason naming the field. */
  parse(value: unknown, room: RoomName): FamilyItems[F] | string;
  /**
   * Mixes the few fields that identify one logical event into the current fingerprint
   * (fingerprint.ts); absent when the family is not deduplicated.
   */
  readonly identity?: (item: FamilyItems[F], room: RoomName) => void;
  /** Dedup scope: rooms that carry the same events share one. */
  scope(room: RoomName): string;
  /** REST history that backfills the room after a gap, if any. */
  backfill?(room: RoomName): BackfillScope | undefined;
}

/** Declares a family (fixes its type parameter). */
export function roomFamily<F extends FamilyName>(f: RoomFamily<F>): RoomFamily<F> {
  return f;
}
