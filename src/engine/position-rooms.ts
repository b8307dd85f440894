/**
 * The rooms a position holds while it is open: the price room (marks and price exits) and, for a
 * strategy with `exitOnSafety` rules, the safety rooms of the signals it watches. Fresh and
 * restored positions join the same rooms, so a restart arms every exit again.
 */
import type { ExitRules } from './exit-rules.js';

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
