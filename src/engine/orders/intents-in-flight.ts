/**
 * The order flow's one piece of shared state: the intents handed to the executor and not yet
 * resolved, with running totals of what they commit (buy lamports in all and per token, sell raw
 * amounts per strategy and token, buys that would open a position). Placement adds, reporting
 * removes, admission and the risk gate read; every total is exact on each add and remove, so the
 * gate's reads are O(1).
 */
import { addLamports, addRaw, subLamports, subRaw, ZERO_LAMPORTS, ZERO_RAW, type Lamports, type RawAmount } from '../../core/index.js';
import { amountInOf, type OrderIntent } from './execution-port.js';
import type { ExitOrder } from '../exits/exit-manager.js';
import type { PendingIntent } from '../strategy/strategy-api.js';

/** An intent in flight and what its resolution must settle. */
export interface InFlightOrder {
  readonly intent: OrderIntent;
  /** The exit rule's order this sell carries out, if any (its level is settled with the outcome). */
  readonly exit: ExitOrder | undefined;
  /** A buy while the strategy held none of the token: it counts against the open-positions limit. */
  readonly opening: boolean;
  /** Releases the price room joined because the token had no observed price (set right after the submit). */
  releasePrice: (() => void) | undefined;
}

export interface IntentsInFlight {
  /** Holds `o` from its submit until its resolution, counting it in the totals. */
  add(o: InFlightOrder): void;
  get(intentId: string): InFlightOrder | undefined;
  /** Forgets `o` (resolved) and takes it out of the totals. */
  remove(o: InFlightOrder): void;
  size(): number;
  /** Lamports of buys in flight, of every token or of `mint`. */
  buyLamports(mint?: string): Lamports;
  /** Raw tokens of sells in flight for this strategy and token. */
  sellRaw(strategyId: string, mint: string): RawAmount;
  /** Whether a buy in flight by `strategyId` of `mint` was placed while the strategy held none of it. */
  opening(strategyId: string, mint: string): boolean;
  /** The (strategy, token) pairs with a buy in flight placed while the strategy held none of the token. */
  openingPairs(): IterableIterator<OpeningPair>;
  /** The id of an unresolved buy of `mint` by `strategyId`, if any. */
  buyOf(strategyId: string, mint: string): string | undefined;
  /** A strategy's intents in flight, optionally for one token. */
  of(strategyId: string, mint?: string): PendingIntent[];
}

/** A (strategy, token) pair with buys in flight that would open its position, and how many. */
export interface OpeningPair {
  readonly strategyId: string;
  readonly mint: string;
  readonly buys: number;
}

/** The key of a strategy's holding of a token (the portfolio's position key). */
export const holdingKey = (strategyId: string, mint: string): string => `${strategyId}\u0000${mint}`;

const put = <A extends bigint>(m: Map<string, A>, k: string, v: A): void => {
  if (v === 0n) m.delete(k);
  else m.set(k, v);
};

export function createIntentsInFlight(): IntentsInFlight {
  const byId = new Map<string, InFlightOrder>();
  let buyTotal = ZERO_LAMPORTS;
  const buyByMint = new Map<string, Lamports>();
  const sellByKey = new Map<string, RawAmount>();
  const opening = new Map<string, OpeningPair>();

  const track = (o: InFlightOrder, adding: boolean): void => {
    const { intent } = o;
    if (intent.side === 'buy') {
      const inMint = buyByMint.get(intent.mint) ?? ZERO_LAMPORTS;
      buyTotal = adding ? addLamports(buyTotal, intent.spendLamports) : subLamports(buyTotal, intent.spendLamports);
      put(buyByMint, intent.mint, adding ? addLamports(inMint, intent.spendLamports) : subLamports(inMint, intent.spendLamports));
      if (o.opening) {
        const k = holdingKey(intent.strategyId, intent.mint);
        const n = (opening.get(k)?.buys ?? 0) + (adding ? 1 : -1);
        if (n === 0) opening.delete(k);
        else opening.set(k, { strategyId: intent.strategyId, mint: intent.mint, buys: n });
      }
    } else {
      const k = holdingKey(intent.strategyId, intent.mint);
      const selling = sellByKey.get(k) ?? ZERO_RAW;
      put(sellByKey, k, adding ? addRaw(selling, intent.sellRaw) : subRaw(selling, intent.sellRaw));
    }
  };

  return {
    add(o) {
      byId.set(o.intent.id, o);
      track(o, true);
    },
    get: (intentId) => byId.get(intentId),
    remove(o) {
      byId.delete(o.intent.id);
      track(o, false);
    },
    size: () => byId.size,
    buyLamports: (mint) => (mint === undefined ? buyTotal : (buyByMint.get(mint) ?? ZERO_LAMPORTS)),
    sellRaw: (strategyId, mint) => sellByKey.get(holdingKey(strategyId, mint)) ?? ZERO_RAW,
    opening: (strategyId, mint) => opening.has(holdingKey(strategyId, mint)),
    openingPairs: () => opening.values(),
    buyOf(strategyId, mint) {
      if ((buyByMint.get(mint) ?? 0n) === 0n) return undefined;
      for (const o of byId.values()) if (o.intent.side === 'buy' && o.intent.strategyId === strategyId && o.intent.mint === mint) return o.intent.id;
      return undefined;
    },
    of(strategyId, mint) {
      const out: PendingIntent[] = [];
      for (const { intent: i } of byId.values()) {
        if (i.strategyId !== strategyId || (mint !== undefined && i.mint !== mint)) continue;
        const common = { intentId: i.id, mint: i.mint, amountIn: amountInOf(i), createdAt: i.createdAt };
        out.push(i.side === 'buy' ? { ...common, side: 'buy', spendLamports: i.spendLamports } : { ...common, side: 'sell', sellRaw: i.sellRaw });
      }
      return out;
    },
  };
}
