/**
 * The rooms a position holds while it is open: the price room (marks and price exits) and, for a
 * strategy with `exitOnSafety` rules, the safety rooms of the signals it watches. Fresh and
 * restored positions join the same rooms, so a restart arms every exit again.
 */
import type { ExitRules } from './exits/exit-rules.js';
import type { RoomOwners } from './room-owners.js';

const SAFETY_ROOMS: ReadonlyArray<readonly [keyof NonNullable<ExitRules['exitOnSafety']>, string]> = [
  ['maxBundlerPct', 'bundlers'],
  ['maxSniperPct', 'sniper'],
  ['maxInsiderPct', 'insider'],
  ['maxTop10Pct', 'top10'],
  ['maxDevHoldingPct', 'dev_holding'],
];

/** Rooms of an open position on `mint` under `rules` (price room first). */
export function positionRooms(priceRoom: string, rules: ExitRules | undefined, mint: string): string[] {
  const out = [`${priceRoom}:${mint}`];
  const safety = rules?.exitOnSafety;
  if (safety) for (const [key, family] of SAFETY_ROOMS) if (safety[key] !== undefined) out.push(`${family}:${mint}`);
  return out;
}

/** Joins and leaves the rooms of positions on the room owners, as each position's strategy. */
export interface PositionRoomKeeper {
  /** A position opened (or was restored): its strategy joins the position's rooms. */
  opened(p: { readonly strategyId: string; readonly mint: string }): void;
  /** The position closed: its strategy leaves the position's rooms. */
  closed(p: { readonly strategyId: string; readonly mint: string }): void;
  /** A buy on a token with no observed price: its strategy holds the token's price room until the returned release (idempotent). */
  watchPrice(strategyId: string, mint: string): () => void;
}

/** A keeper joining `priceRoom` rooms (`price:token` or `price:aggregated`) and the safety rooms of `rulesFor(strategyId)`. */
export function createPositionRoomKeeper(rooms: RoomOwners, priceRoom: string, rulesFor: (strategyId: string) => ExitRules | undefined): PositionRoomKeeper {
  return {
    opened(p) {
      for (const r of positionRooms(priceRoom, rulesFor(p.strategyId), p.mint)) rooms.acquire(p.strategyId, r);
    },
    closed(p) {
      for (const r of positionRooms(priceRoom, rulesFor(p.strategyId), p.mint)) rooms.release(p.strategyId, r);
    },
    watchPrice(strategyId, mint) {
      const room = `${priceRoom}:${mint}`;
      rooms.acquire(strategyId, room);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        rooms.release(strategyId, room);
      };
    },
  };
}
