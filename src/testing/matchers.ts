/** What the kit's assertion helpers compare: a few named fields of an intent or a fill, exact. */
import type { DecisionEntry } from '../engine/logs/decision-log.js';
import type { Fill, OrderIntent } from '../engine/orders/execution-port.js';

/** A denial in the decision log. */
export type DeniedEntry = Extract<DecisionEntry, { readonly kind: 'denied' }>;

/** Fields an intent must have (each optional; amounts exact bigints). */
export interface IntentMatch {
  readonly side?: 'buy' | 'sell';
  readonly mint?: string;
  /** A buy's SOL to spend. */
  readonly spendLamports?: bigint;
  /** A sell's raw token units. */
  readonly sellRaw?: bigint;
  /** The reason, or a part of it. */
  readonly reason?: string | RegExp;
}

/** Fields a fill must have (each optional). */
export interface FillMatch {
  readonly side?: 'buy' | 'sell';
  readonly mint?: string;
  readonly intentId?: string;
}

type Matchable = Partial<Record<'side' | 'mint' | 'reason' | 'intentId', string>> & Partial<Record<'spendLamports' | 'sellRaw', bigint>>;

/** Whether `item` has every field `match` names. */
export function matches(item: OrderIntent | Fill, match: IntentMatch | FillMatch): boolean {
  const it = item as Matchable;
  for (const [key, want] of Object.entries(match) as [keyof Matchable, unknown][]) {
    if (want === undefined) continue;
    const got = it[key];
    if (key === 'reason' && typeof got === 'string') {
      if (want instanceof RegExp ? !want.test(got) : typeof want !== 'string' || !got.includes(want)) return false;
    } else if (got !== want) return false;
  }
  return true;
}

/** One line per item for an assertion's message: `what: none`, or the items' main fields. */
export function describeAll(what: string, items: readonly (OrderIntent | Fill | DeniedEntry)[]): string {
  if (items.length === 0) return `${what}: none`;
  const line = (i: OrderIntent | Fill | DeniedEntry): string => {
    if ('kind' in i) return `${i.side} ${i.mint} ${i.amountIn} denied ${i.code}: ${i.reason}`;
    if ('solAmount' in i) return `${i.side} ${i.mint} filled ${i.solAmount} lamports for ${i.tokenAmount} raw at ${i.price}`;
    return i.side === 'buy' ? `buy ${i.mint} ${i.spendLamports} lamports (${i.reason})` : `sell ${i.mint} ${i.sellRaw} raw (${i.reason})`;
  };
  return `${what}: ${items.map(line).join('; ')}`;
}
