/**
 * PnL V2 views from the FIFO book. Amounts are exact lamports (`*Raw` strings); USD numbers are the
 * lamports through the fixed SOL price. `pnlMode` decides how flagged positions count (see docs).
 */
import type { MarketState } from '../model/market-state.js';
import type { PnlPosition } from '../model/pnl-book.js';
import { priceSol } from '../model/token-pricing.js';
import type { JsonObject } from './wire-views.js';

export type PnlMode = 'strict' | 'adjusted' | 'raw';

/** A position is flagged when its wallet is the token's developer or an insider and the token was rugged. */
export function isFlagged(state: MarketState, p: PnlPosition): boolean {
  const t = state.tokens.get(p.mint);
  const roles = t?.roles.get(p.wallet);
  return !!t && t.rugged && !!roles && (roles.has('developer') || roles.has('insider'));
}

function usd(state: MarketState, lamports: bigint | number): number {
  return (Number(lamports) / 1e9) * state.settings.solUsd;
}

/** Realized lamports under `mode`. */
export function realizedLamports(state: MarketState, p: PnlPosition, mode: PnlMode): bigint {
  if (mode === 'raw' || !isFlagged(state, p)) return p.realizedLamports;
  if (mode === 'strict') return 0n;
  return p.realizedLamports > p.boughtLamports ? p.boughtLamports : p.realizedLamports;
}

export function pnlPositionView(state: MarketState, p: PnlPosition, mode: PnlMode = 'strict'): JsonObject {
  const t = state.tokens.get(p.mint);
  const pSol = t ? priceSol(t) : 0;
  const decimals = t?.decimals ?? 6;
  const valueSol = (Number(p.balanceRaw) / 10 ** decimals) * pSol;
  const realized = realizedLamports(state, p, mode);
  const unrealizedSol = valueSol - Number(p.costBasisLamports) / 1e9;
  const realizedUsd = usd(state, realized);
  const unrealizedUsd = unrealizedSol * state.settings.solUsd;
  const invested = usd(state, p.boughtLamports);
  return {
    wallet: p.wallet,
    token: p.mint,
    pnlMode: mode,
    flagged: isFlagged(state, p),
    realized: realizedUsd,
    realizedRaw: realized.toString(),
    unrealized: unrealizedUsd,
    total: realizedUsd + unrealizedUsd,
    roi: invested > 0 ? ((realizedUsd + unrealizedUsd) / invested) * 100 : 0,
    buys: p.buys,
    sells: p.sells,
    totalTrades: p.buys + p.sells,
    balance: Number(p.balanceRaw) / 10 ** decimals,
    balanceRaw: p.balanceRaw.toString(),
    costBasis: usd(state, p.costBasisLamports),
    costBasisRaw: p.costBasisLamports.toString(),
    value: valueSol * state.settings.solUsd,
    price: pSol * state.settings.solUsd,
    totalBought: invested,
    totalSold: usd(state, p.soldLamports),
    totalBoughtRaw: p.boughtLamports.toString(),
    totalSoldRaw: p.soldLamports.toString(),
    avgBuy: p.buys > 0 ? invested / p.buys : 0,
    avgSell: p.sells > 0 ? usd(state, p.soldLamports) / p.sells : 0,
    holding: p.balanceRaw > 0n,
    timing: {
      firstBuy: p.firstBuy ?? null,
      lastBuy: p.lastBuy ?? null,
      firstSell: p.firstSell ?? null,
      lastSell: p.lastSell ?? null,
      firstTrade: p.firstTrade,
      lastTrade: p.lastTrade,
    },
  };
}

/** Wallet summary: totals, win rate, averages, counts, ROI buckets, timing and platform tags. */
export function walletSummary(state: MarketState, wallet: string, mode: PnlMode = 'strict'): JsonObject {
  const positions = state.pnl.walletPositions(wallet);
  let realized = 0;
  let unrealized = 0;
  let invested = 0;
  let wins = 0;
  let losses = 0;
  let holdMs = 0;
  let closed = 0;
  const buckets = { '<-50': 0, '-50-0': 0, '0-100': 0, '100-500': 0, '>500': 0 };
  for (const p of positions) {
    const v = pnlPositionView(state, p, mode);
    realized += v['realized'] as number;
    unrealized += v['unrealized'] as number;
    invested += v['totalBought'] as number;
    const roi = v['roi'] as number;
    if (p.sells > 0) {
      if ((v['realized'] as number) > 0) wins += 1;
      else losses += 1;
      holdMs += (p.lastSell ?? p.lastTrade) - (p.firstBuy ?? p.firstTrade);
      closed += 1;
    }
    if (roi < -50) buckets['<-50'] += 1;
    else if (roi < 0) buckets['-50-0'] += 1;
    else if (roi < 100) buckets['0-100'] += 1;
    else if (roi < 500) buckets['100-500'] += 1;
    else buckets['>500'] += 1;
  }
  const open = positions.filter((p) => p.balanceRaw > 0n);
  return {
    wallet,
    pnlMode: mode,
    summary: {
      realized,
      unrealized,
      total: realized + unrealized,
      totalInvested: invested,
      roi: invested > 0 ? ((realized + unrealized) / invested) * 100 : 0,
      winRate: wins + losses > 0 ? (wins / (wins + losses)) * 100 : 0,
      wins,
      losses,
      tokensTraded: positions.length,
      openPositions: open.length,
      averages: { invested: positions.length > 0 ? invested / positions.length : 0, realized: positions.length > 0 ? realized / positions.length : 0 },
      roiBuckets: buckets,
      timing: { avgHoldTimeSecs: closed > 0 ? Math.round(holdMs / closed / 1000) : 0 },
      platforms: [...(state.wallets.get(wallet)?.tags ?? [])],
    },
  };
}
