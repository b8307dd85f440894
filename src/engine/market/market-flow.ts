/**
 * Rolling trade flow per token (`ctx.flow(mint, windowMs)`): every swap the engine sees is kept on
 * its token's tape, stamped with the run clock when it was dispatched, so a recording replays to
 * the same answers. Memory is bounded: a tape keeps at most the last hour and
 * `MAX_FLOW_TRADES_PER_TOKEN` swaps; at most `MAX_FLOW_TOKENS` tokens are kept (the least recently
 * traded go first, and any token with no swap in the last hour). Amounts stay exact: SOL in
 * lamports, the VWAP an exact decimal string of SOL per whole token.
 */
import { ChainpilotError, LAMPORTS_PER_SOL, type Lamports, type UnixMs } from '../../core/index.js';
import { plainDecimalParts, pow10, quotientString } from '../../core/exact-ratio.js';
import type { SwapTraded } from '../events/events.js';

/** The longest window `ctx.flow` answers (1 h). */
export const MAX_FLOW_WINDOW_MS = 3_600_000;
/** Swaps kept per token (the oldest are dropped first; `complete` then says so). */
export const MAX_FLOW_TRADES_PER_TOKEN = 2_048;
/** Tokens with a tape (the least recently traded token is dropped past this). */
export const MAX_FLOW_TOKENS = 1_024;

/** Trade flow of one token over a window ending now (`ctx.flow`). */
export interface TradeFlow {
  readonly mint: string;
  /** The window: swaps seen after `from` and up to `to` (now), on the run clock. */
  readonly from: UnixMs;
  readonly to: UnixMs;
  /** Swaps in the window, and how many of them were buys and sells. */
  readonly trades: number;
  readonly buys: number;
  readonly sells: number;
  /** SOL spent by buyers and received by sellers, in lamports (swaps that carry their SOL size). */
  readonly buyLamports: Lamports;
  readonly sellLamports: Lamports;
  /** `buyLamports + sellLamports`. */
  readonly volumeLamports: Lamports;
  /** `buyLamports - sellLamports` (negative when sellers dominate). */
  readonly netLamports: bigint;
  /** Distinct wallets that bought, that sold, and that did either (swaps without a wallet are not counted). */
  readonly buyers: number;
  readonly sellers: number;
  readonly wallets: number;
  /**
   * Volume-weighted average price, SOL per whole token, exact decimal string: the SOL of the
   * window's swaps over their token amount (swaps with both). Undefined without such a swap.
   */
  readonly vwap: string | undefined;
  /**
   * True when the engine kept this token's tape for the whole window: its first kept swap came
   * before `from` and no swap inside the window was dropped by the per-token bound. A token first
   * seen inside the window reads false (its earlier swaps, if any, were not seen).
   */
  readonly complete: boolean;
}

interface Mark {
  readonly at: number;
  readonly buy: boolean;
  readonly lamports: bigint | undefined;
  readonly wallet: string | undefined;
  readonly amount: string | undefined;
}

interface Tape {
  marks: Mark[];
  /** Index of the oldest kept mark (the array is compacted when half of it is dropped). */
  head: number;
  /** The tape is whole for windows that start at or after this time. */
  keptSince: number;
}

export interface MarketFlow {
  /** Puts a swap on its token's tape at `now` (the run clock). */
  observe(ev: SwapTraded, now: UnixMs): void;
  /** The flow of `mint` over `windowMs` ending at `now`. */
  flow(mint: string, windowMs: number, now: UnixMs): TradeFlow;
  /** Tokens with a tape (tests, memory checks). */
  size(): number;
}

/** Checks a window length: an integer of ms from 1 to `max`, else STRATEGY_BAD_ARGUMENT naming the call. */
export function checkWindow(what: string, ms: number, max: number): void {
  if (!Number.isSafeInteger(ms) || ms < 1 || ms > max) {
    throw new ChainpilotError('STRATEGY_BAD_ARGUMENT', `${what}: got ${String(ms)}; pass an integer number of milliseconds from 1 to ${max}`, {
      retry: 'not_retryable',
      context: { what },
    });
  }
}

export function createMarketFlow(): MarketFlow {
  /** Tapes in order of their last swap, least recent first. */
  const tapes = new Map<string, Tape>();

  const trim = (t: Tape, before: number): void => {
    const m = t.marks;
    while (t.head < m.length && m[t.head]!.at <= before) t.head++;
    if (t.head > 64 && t.head * 2 > m.length) {
      t.marks = m.slice(t.head);
      t.head = 0;
    }
  };

  return {
    observe(ev, now) {
      let t = tapes.get(ev.mint);
      if (t === undefined) t = { marks: [], head: 0, keptSince: now };
      else tapes.delete(ev.mint); // re-inserted last: the map stays in order of the last swap
      tapes.set(ev.mint, t);
      t.marks.push({ at: now, buy: ev.side === 'buy', lamports: ev.solLamports, wallet: ev.wallet, amount: ev.amount });
      if (t.marks.length - t.head > MAX_FLOW_TRADES_PER_TOKEN) {
        t.keptSince = Math.max(t.keptSince, t.marks[t.head]!.at);
        t.head++;
      }
      trim(t, now - MAX_FLOW_WINDOW_MS);
      // tokens with no swap in the last hour have nothing to answer with; past the bound, the least recently traded go
      for (const [mint, old] of tapes) {
        const last = old.marks[old.marks.length - 1];
        if (tapes.size <= MAX_FLOW_TOKENS && last !== undefined && last.at > now - MAX_FLOW_WINDOW_MS) break;
        tapes.delete(mint);
      }
    },
    flow(mint, windowMs, now) {
      checkWindow('ctx.flow windowMs', windowMs, MAX_FLOW_WINDOW_MS);
      const from = now - windowMs;
      const t = tapes.get(mint);
      let trades = 0;
      let buys = 0;
      let buyLamports = 0n;
      let sellLamports = 0n;
      const buyers = new Set<string>();
      const sellers = new Set<string>();
      let vwapLamports = 0n;
      const amounts: { digits: bigint; scale: number }[] = [];
      let maxScale = 0;
      if (t !== undefined) {
        const m = t.marks;
        for (let i = m.length - 1; i >= t.head; i--) {
          const k = m[i]!;
          if (k.at <= from) break;
          if (k.at > now) continue;
          trades++;
          if (k.buy) buys++;
          if (k.lamports !== undefined) {
            if (k.buy) buyLamports += k.lamports;
            else sellLamports += k.lamports;
          }
          if (k.wallet !== undefined) (k.buy ? buyers : sellers).add(k.wallet);
          const parts = k.lamports !== undefined && k.amount !== undefined ? plainDecimalParts(k.amount) : undefined;
          if (parts !== undefined && parts.digits > 0n) {
            vwapLamports += k.lamports!;
            amounts.push(parts);
            if (parts.scale > maxScale) maxScale = parts.scale;
          }
        }
      }
      let tokens = 0n;
      for (const a of amounts) tokens += a.digits * pow10(maxScale - a.scale);
      const wallets = new Set(buyers);
      for (const w of sellers) wallets.add(w);
      return {
        mint,
        from: from as UnixMs,
        to: now,
        trades,
        buys,
        sells: trades - buys,
        buyLamports: buyLamports as Lamports,
        sellLamports: sellLamports as Lamports,
        volumeLamports: (buyLamports + sellLamports) as Lamports,
        netLamports: buyLamports - sellLamports,
        buyers: buyers.size,
        sellers: sellers.size,
        wallets: wallets.size,
        // SOL per whole token, (lamports / 1e9) / (tokens / 10^scale), to 40 places as Decimal divides
        vwap: tokens > 0n ? quotientString(vwapLamports * pow10(maxScale), tokens * LAMPORTS_PER_SOL, 0) : undefined,
        complete: t !== undefined && t.keptSince <= from,
      };
    },
    size: () => tapes.size,
  };
}
