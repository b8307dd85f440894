/**
 * Per-wallet, per-token profit and loss with a FIFO cost basis in exact lamports. A partial lot's
 * cost is prorated with integer division (rounded down).
 */
import type { UnixMs } from '../../core/index.js';

export interface PnlPosition {
  readonly wallet: string;
  readonly mint: string;
  readonly lots: { raw: bigint; costLamports: bigint }[];
  balanceRaw: bigint;
  costBasisLamports: bigint;
  realizedLamports: bigint;
  boughtLamports: bigint;
  soldLamports: bigint;
  boughtRaw: bigint;
  soldRaw: bigint;
  buys: number;
  sells: number;
  firstBuy?: UnixMs;
  lastBuy?: UnixMs;
  firstSell?: UnixMs;
  lastSell?: UnixMs;
  firstTrade: UnixMs;
  lastTrade: UnixMs;
}

export interface PnlBook {
  record(wallet: string, mint: string, side: 'buy' | 'sell', solLamports: bigint, tokenRaw: bigint, at: UnixMs): PnlPosition;
  position(wallet: string, mint: string): PnlPosition | undefined;
  walletPositions(wallet: string): PnlPosition[];
  tokenPositions(mint: string): PnlPosition[];
  wallets(): Iterable<string>;
  /** Forgets every position in `mint` (a retired token). */
  dropToken(mint: string): void;
}

/** `maxLots` bounds each position's FIFO lots: beyond it the two oldest merge into one (raw and cost summed exactly). */
export function createPnlBook(maxLots = Number.POSITIVE_INFINITY): PnlBook {
  const byWallet = new Map<string, Map<string, PnlPosition>>();
  const byToken = new Map<string, Map<string, PnlPosition>>();
  return {
    record(wallet, mint, side, solLamports, tokenRaw, at) {
      let wm = byWallet.get(wallet);
      if (!wm) byWallet.set(wallet, (wm = new Map<string, PnlPosition>()));
      let p = wm.get(mint);
      if (!p) {
        p = {
          wallet,
          mint,
          lots: [],
          balanceRaw: 0n,
          costBasisLamports: 0n,
          realizedLamports: 0n,
          boughtLamports: 0n,
          soldLamports: 0n,
          boughtRaw: 0n,
          soldRaw: 0n,
          buys: 0,
          sells: 0,
          firstTrade: at,
          lastTrade: at,
        };
        wm.set(mint, p);
        let tm = byToken.get(mint);
        if (!tm) byToken.set(mint, (tm = new Map<string, PnlPosition>()));
        tm.set(wallet, p);
      }
      p.lastTrade = at;
      if (side === 'buy') {
        p.lots.push({ raw: tokenRaw, costLamports: solLamports });
        if (p.lots.length > maxLots) {
          const [a, b] = p.lots.splice(0, 2) as [{ raw: bigint; costLamports: bigint }, { raw: bigint; costLamports: bigint }];
          p.lots.unshift({ raw: a.raw + b.raw, costLamports: a.costLamports + b.costLamports });
        }
        p.balanceRaw += tokenRaw;
        p.costBasisLamports += solLamports;
        p.boughtLamports += solLamports;
        p.boughtRaw += tokenRaw;
        p.buys += 1;
        p.firstBuy ??= at;
        p.lastBuy = at;
        return p;
      }
      let left = tokenRaw;
      let cost = 0n;
      while (left > 0n && p.lots.length > 0) {
        const lot = p.lots[0]!;
        if (lot.raw <= left) {
          left -= lot.raw;
          cost += lot.costLamports;
          p.lots.shift();
        } else {
          const part = (lot.costLamports * left) / lot.raw;
          cost += part;
          lot.raw -= left;
          lot.costLamports -= part;
          left = 0n;
        }
      }
      const sold = tokenRaw - left;
      p.balanceRaw -= sold;
      p.costBasisLamports -= cost;
      p.realizedLamports += solLamports - cost;
      p.soldLamports += solLamports;
      p.soldRaw += tokenRaw;
      p.sells += 1;
      p.firstSell ??= at;
      p.lastSell = at;
      return p;
    },
    position: (wallet, mint) => byWallet.get(wallet)?.get(mint),
    walletPositions: (wallet) => [...(byWallet.get(wallet)?.values() ?? [])],
    tokenPositions: (mint) => [...(byToken.get(mint)?.values() ?? [])],
    wallets: () => byWallet.keys(),
    dropToken(mint) {
      for (const wallet of byToken.get(mint)?.keys() ?? []) {
        const wm = byWallet.get(wallet);
        wm?.delete(mint);
        if (wm && wm.size === 0) byWallet.delete(wallet);
      }
      byToken.delete(mint);
    },
  };
}
