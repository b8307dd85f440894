/**
 * Moves reserves, balances, tape and PnL for one swap, and fires milestones and graduation. Both
 * the model's own traders and swaps landed on the ledger go through `applySwap`.
 */
import type { UnixMs } from '../../core/index.js';
import { constantProductOut, grossForNet, netInForOut } from '../curve-math.js';
import { simAddress, simSignature } from '../sim-ids.js';
import { addBalance } from './holdings.js';
import { emit, slotAt, type MarketState } from './market-state.js';
import type { LiquidityRecord, TokenState, TradeRecord } from './model-types.js';
import { curvePct, priceSol } from './token-pricing.js';

export const CURVE_FEE_BPS = 100;
export const AMM_FEE_BPS = 25;
/** Lamports kept by the launchpad when a completed curve migrates. */
export const MIGRATION_FEE_LAMPORTS = 6_000_000_000n;
/** Simulated time during which a completed curve is not tradable. */
export const MIGRATION_MS = 2_000;

export function feeBps(t: TokenState): number {
  return t.amm ? AMM_FEE_BPS : CURVE_FEE_BPS;
}

export interface SwapPlan {
  readonly grossIn: bigint;
  readonly netIn: bigint;
  readonly out: bigint;
}

/** What a swap of `amountIn` gives now; undefined when not tradable or empty. Curve buys cap at the real token left. */
export function planSwap(t: TokenState, side: 'buy' | 'sell', amountIn: bigint): SwapPlan | undefined {
  if (t.status === 'migrating' || amountIn <= 0n) return undefined;
  const fee = feeBps(t);
  const solR = t.amm ? t.amm.sol : t.curve.virtualSol;
  const tokR = t.amm ? t.amm.token : t.curve.virtualToken;
  if (side === 'buy') {
    const m = constantProductOut(solR, tokR, amountIn, fee);
    if (!t.amm && m.amountOut >= t.curve.realToken) {
      const out = t.curve.realToken;
      if (out <= 0n) return undefined;
      const netIn = netInForOut(solR, tokR, out);
      return { grossIn: grossForNet(netIn, fee), netIn, out };
    }
    return m.amountOut > 0n ? { grossIn: amountIn, netIn: m.netIn, out: m.amountOut } : undefined;
  }
  const m = constantProductOut(tokR, solR, amountIn, fee);
  const cap = t.amm ? t.amm.sol - 1n : t.curve.realSol;
  const out = m.amountOut > cap ? cap : m.amountOut;
  return out > 0n ? { grossIn: amountIn, netIn: m.netIn, out } : undefined;
}

export interface SwapInput {
  readonly wallet: string;
  readonly side: 'buy' | 'sell';
  readonly solLamports: bigint;
  readonly tokenRaw: bigint;
  readonly tx: string;
  readonly slot: number;
  readonly at: UnixMs;
  readonly external: boolean;
  /** What the wallet gave before the fee (lamports on a buy, raw tokens on a sell); defaults to the pool amount. */
  readonly grossIn?: bigint;
}

/** Applies exactly the given pool movements and records the trade. */
export function applySwap(state: MarketState, t: TokenState, s: SwapInput): TradeRecord {
  const maxPctBefore = t.maxCurvePct;
  const sign = s.side === 'buy' ? 1n : -1n;
  if (t.amm) {
    t.amm.sol += sign * s.solLamports;
    t.amm.token -= sign * s.tokenRaw;
  } else {
    t.curve.virtualSol += sign * s.solLamports;
    t.curve.realSol += sign * s.solLamports;
    t.curve.virtualToken -= sign * s.tokenRaw;
    t.curve.realToken -= sign * s.tokenRaw;
  }
  const walletTokens = s.side === 'sell' ? (s.grossIn ?? s.tokenRaw) : s.tokenRaw;
  const walletSol = s.side === 'buy' ? (s.grossIn ?? s.solLamports) : s.solLamports;
  addBalance(t, s.wallet, sign * walletTokens);
  const pSol = priceSol(t);
  const solUsd = state.settings.solUsd;
  const trade: TradeRecord = {
    seq: ++state.seq,
    tx: s.tx,
    mint: t.mint,
    pool: t.amm ? t.amm.poolId : t.curve.poolId,
    market: t.amm ? 'venue_a-amm' : t.launchpad,
    wallet: s.wallet,
    side: s.side,
    solLamports: s.solLamports,
    tokenRaw: s.tokenRaw,
    walletTokenRaw: walletTokens,
    walletSolLamports: walletSol,
    priceSol: pSol,
    priceUsd: pSol * solUsd,
    volumeUsd: (Number(s.solLamports) / 1e9) * solUsd,
    time: s.at,
    slot: s.slot,
    external: s.external,
  };
  if (trade.priceUsd > t.athPriceUsd) t.athPriceUsd = trade.priceUsd;
  if (s.side === 'buy') t.buys += 1;
  else t.sells += 1;
  t.volumeLamports += s.solLamports;
  let rows = state.tradesByToken.get(t.mint);
  if (!rows) state.tradesByToken.set(t.mint, (rows = []));
  rows.push(trade);
  if (rows.length > state.settings.maxTradesPerToken) rows.splice(0, rows.length - state.settings.maxTradesPerToken);
  state.activity.add(trade, t.launchpad);
  state.pnl.record(s.wallet, t.mint, s.side, walletSol, walletTokens, s.at);
  emit(state, { kind: 'trade', token: t, trade, maxCurvePctBefore: maxPctBefore });
  fireMilestones(state, t, s.at);
  if (t.status === 'curve' && t.curve.realToken <= 0n) startMigration(state, t, s.at);
  return trade;
}

function fireMilestones(state: MarketState, t: TokenState, at: UnixMs): void {
  const pct = curvePct(t);
  if (pct <= t.maxCurvePct) return;
  const before = t.maxCurvePct;
  t.maxCurvePct = pct;
  for (const m of [10, 25, 50, 75, 90, 100]) {
    if (m > before && m <= pct) {
      t.milestones.push({ pct: m, at });
      emit(state, { kind: 'milestone', token: t, pct: m, at });
    }
  }
}

function startMigration(state: MarketState, t: TokenState, at: UnixMs): void {
  t.status = 'migrating';
  t.graduationTx = simSignature(state.random);
  t.graduatedAt = (at + MIGRATION_MS) as UnixMs;
}

/** Finishes a migration whose time has come: opens the AMM pool and streams the graduation. */
export function finishMigration(state: MarketState, t: TokenState, at: UnixMs): void {
  const solIn = t.curve.realSol > MIGRATION_FEE_LAMPORTS + 1_000_000_000n ? t.curve.realSol - MIGRATION_FEE_LAMPORTS : t.curve.realSol;
  const tokenIn = t.supplyRaw - t.curve.initialRealToken;
  const poolId = simAddress(state.random);
  t.amm = { poolId, sol: solIn, token: tokenIn, createdAt: at, createdTx: t.graduationTx! };
  state.poolToMint.set(poolId, t.mint);
  t.status = 'graduated';
  t.graduatedAt = at;
  state.activity.addLifecycle('migration', at, 'venue_a-amm', t.launchpad);
  t.activity = Math.max(t.activity * 0.5, 0.3);
  t.buyBias = 0.5;
  recordLiquidity(state, t, 'add_liquidity', MIGRATION_WALLET, solIn, tokenIn, t.graduationTx!, at, true);
  emit(state, { kind: 'graduated', token: t, at });
}

/** The program-derived authority that deposits a migrated curve into its AMM pool. */
export const MIGRATION_WALLET = '39azUYFWPz3VHgKCf3VChUwbpURdCHRxjWVowf5jUJjg';

/** Moves AMM reserves for a liquidity action and records it (a non-canonical one only streams). */
export function recordLiquidity(
  state: MarketState,
  t: TokenState,
  type: LiquidityRecord['type'],
  wallet: string,
  solLamports: bigint,
  tokenRaw: bigint,
  tx: string,
  at: UnixMs,
  canonical: boolean,
): LiquidityRecord {
  if (canonical && t.amm && type === 'remove_liquidity') {
    t.amm.sol -= solLamports;
    t.amm.token -= tokenRaw;
  } else if (canonical && t.amm && tx !== t.amm.createdTx) {
    t.amm.sol += solLamports;
    t.amm.token += tokenRaw;
  }
  const event: LiquidityRecord = {
    seq: ++state.seq,
    tx,
    type,
    mint: t.mint,
    pool: t.amm?.poolId ?? t.curve.poolId,
    program: 'venue_a-amm',
    wallet,
    solLamports,
    tokenRaw,
    time: at,
    slot: slotAt(state, at),
    canonical,
  };
  if (canonical) {
    let rows = state.liquidityByToken.get(t.mint);
    if (!rows) state.liquidityByToken.set(t.mint, (rows = []));
    rows.push(event);
    if (rows.length > state.settings.maxLiquidityPerToken) rows.splice(0, rows.length - state.settings.maxLiquidityPerToken);
  }
  emit(state, { kind: 'liquidity', token: t, event });
  return event;
}
