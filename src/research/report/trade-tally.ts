/**
 * One pass over a run's decision log: fills paired into trades (a trade opens with a strategy's
 * first buy of a mint and closes when its tokens are sold), the price markers of every fill, fees
 * (inside trades, and of failed transactions that opened none), slippage against each intent's
 * reference price, and the counts of intents, fills and denials. Money stays bigint lamports.
 */
import { Decimal, decimal } from '../../core/index.js';
import { divHalfEven, plainDecimalParts, pow10, QUOTIENT_PLACES } from '../../core/exact-ratio.js';
import type { DecisionEntry } from '../../engine/logs/decision-log.js';

/** One trade as the log built it (lamports). */
export interface TradeAcc {
  id: number;
  strategyId: string;
  mint: string;
  openedAt: number;
  closedAt: number | null;
  buy: bigint;
  sell: bigint;
  fees: bigint;
  tokens: bigint;
  exitReason: string;
}

export interface FillMarker {
  readonly at: number;
  readonly side: 'buy' | 'sell';
  readonly price: number;
  readonly tradeId: number;
}

/** What the decision log adds up to. */
export interface DecisionTally {
  /** In the order they opened. */
  readonly trades: readonly TradeAcc[];
  /** Fills by mint, for the price charts. */
  readonly markers: ReadonlyMap<string, readonly FillMarker[]>;
  readonly feesLamports: bigint;
  /** Fees of failed transactions outside any trade (a buy that failed and opened nothing), per strategy. */
  readonly failedFees: ReadonlyMap<string, bigint>;
  readonly slippageLamports: bigint;
  readonly intents: number;
  readonly fills: number;
  readonly denials: number;
  readonly denialCodes: ReadonlyMap<string, number>;
}

/** `n / d` rounded half to even (d > 0, n of either sign: ties go to the even neighbour either way). */
const signedDivHalfEven = (n: bigint, d: bigint): bigint => (n < 0n ? -divHalfEven(-n, d) : divHalfEven(n, d));

/**
 * A fill's cost against the intent's reference price, in lamports (half even): a buy paid
 * sol·(1 − ref/price), a sell gave up sol·(ref/price − 1), with ref/price to 40 places as `Decimal`
 * divides. In bigints for plain decimal strings (every fill of a report); anything else through `Decimal`.
 */
export function slippageLamports(side: 'buy' | 'sell', sol: bigint, ref: string, price: string): bigint {
  const r = plainDecimalParts(ref);
  const p = plainDecimalParts(price);
  if (r === undefined || p === undefined || p.digits === 0n) {
    const q = decimal(ref).div(decimal(price));
    const cost = side === 'buy' ? decimal(sol).times(decimal(1).minus(q)) : decimal(sol).times(q.minus(1));
    return BigInt(cost.integerValue(Decimal.ROUND_HALF_EVEN).toFixed());
  }
  const one = pow10(QUOTIENT_PLACES);
  const q = divHalfEven(r.digits * pow10(p.scale) * one, p.digits * pow10(r.scale));
  return signedDivHalfEven(sol * (side === 'buy' ? one - q : q - one), one);
}

/** Adds up `decisions` in log order. */
export function tallyDecisions(decisions: readonly DecisionEntry[]): DecisionTally {
  const reasons = new Map<string, string>();
  const intentMint = new Map<string, string>();
  const refPrice = new Map<string, string | null>();
  const trades: TradeAcc[] = [];
  const open = new Map<string, TradeAcc>();
  const markers = new Map<string, FillMarker[]>();
  const failedFees = new Map<string, bigint>();
  const denialCodes = new Map<string, number>();
  let fees = 0n;
  let slippage = 0n;
  let intents = 0;
  let fills = 0;
  let denials = 0;

  const onFill = (e: Extract<DecisionEntry, { kind: 'fill' }>): void => {
    fills++;
    const key = `${e.strategyId}/${e.mint}`;
    const solAmt = BigInt(e.solAmount);
    const fee = BigInt(e.feeLamports);
    fees += fee;
    const ref = refPrice.get(e.intentId);
    if (ref) {
      slippage += slippageLamports(e.side, solAmt, ref, e.price);
    }
    let t = open.get(key);
    if (!t && e.side === 'buy') {
      t = {
        id: trades.length + 1,
        strategyId: e.strategyId,
        mint: e.mint,
        openedAt: e.at,
        closedAt: null,
        buy: 0n,
        sell: 0n,
        fees: 0n,
        tokens: 0n,
        exitReason: '',
      };
      trades.push(t);
      open.set(key, t);
    }
    if (!t) return;
    t.fees += fee;
    if (e.side === 'buy') {
      t.buy += solAmt;
      t.tokens += BigInt(e.tokenAmount);
    } else {
      t.sell += solAmt;
      t.tokens -= BigInt(e.tokenAmount);
      t.exitReason = reasons.get(e.intentId) ?? '';
      if (t.tokens <= 0n) {
        t.closedAt = e.at;
        open.delete(key);
      }
    }
    const list = markers.get(e.mint) ?? [];
    list.push({ at: e.at, side: e.side, price: Number(e.price), tradeId: t.id });
    markers.set(e.mint, list);
  };

  for (const e of decisions) {
    switch (e.kind) {
      case 'intent':
        intents++;
        reasons.set(e.intentId, e.reason);
        intentMint.set(e.intentId, e.mint);
        refPrice.set(e.intentId, e.referencePrice);
        break;
      case 'denied':
        denials++;
        denialCodes.set(e.code, (denialCodes.get(e.code) ?? 0) + 1);
        break;
      case 'manual':
        // An operator's action: what it placed shows as that intent's own lines.
        break;
      case 'unfilled': {
        const fee = BigInt(e.feeLamports);
        fees += fee;
        const t = open.get(`${e.strategyId}/${intentMint.get(e.intentId) ?? ''}`);
        if (t) t.fees += fee;
        else if (fee > 0n) failedFees.set(e.strategyId, (failedFees.get(e.strategyId) ?? 0n) + fee);
        break;
      }
      case 'fill':
        onFill(e);
        break;
    }
  }
  return { trades, markers, feesLamports: fees, failedFees, slippageLamports: slippage, intents, fills, denials, denialCodes };
}
