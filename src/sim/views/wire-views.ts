/**
 * Wire shapes shared by REST and the Datastream, built from model state on demand. Raw amounts are
 * integer strings, exact amounts decimal strings, prices and USD figures numbers.
 */
import { fromRaw } from '../../core/index.js';
import type { LiquidityEvent, LiquidityTokenAmount, SwapEvent } from '../../client/datastream/index.js';
import type { MarketState } from '../model/market-state.js';
import type { LiquidityRecord, TokenState, TradeRecord } from '../model/model-types.js';
import { holdersByBalance, pctOfSupply, roleBalance } from '../model/holdings.js';
import { curvePct, liquidityUsd, marketCapUsd, priceSol, priceUsd } from '../model/token-pricing.js';
import { SOL_MINT } from '../model/dca-dynamics.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json | undefined };
export type JsonObject = { [k: string]: Json | undefined };

/** Identity of a wallet (null when unknown), with its role on `token` when given. */
export function identityOf(state: MarketState, wallet: string, token?: TokenState): JsonObject | null {
  const w = state.wallets.get(wallet);
  const roles = token ? [...(token.roles.get(wallet) ?? [])].filter((r) => r === 'developer' || r === 'sniper' || r === 'insider' || r === 'bundler') : [];
  if (token && wallet === token.deployer && !roles.includes('developer')) roles.push('developer');
  if ((!w || w.tags.length === 0) && roles.length === 0) return null;
  const tags = [...(w?.tags ?? [])];
  return {
    wallet,
    tags,
    ...(w?.kolName ? { kol: { name: w.kolName, twitter: `@${w.kolName.toLowerCase()}`, avatar: '' } } : {}),
    ...(token ? { roles } : {}),
  };
}

/** One pool of a token (the curve, or the AMM after graduation). */
export function poolView(state: MarketState, t: TokenState, which: 'curve' | 'amm'): JsonObject {
  const solUsd = state.settings.solUsd;
  const amm = which === 'amm' ? t.amm : undefined;
  const live = which === 'amm' || !t.amm;
  const solLamports = amm ? amm.sol : t.curve.realSol;
  const pSol = live ? priceSol(t) : 0;
  return {
    poolId: amm ? amm.poolId : t.curve.poolId,
    market: amm ? 'venue_a-amm' : t.launchpad,
    deployer: t.deployer,
    tokenProgram: 'spl-token',
    isMayhemMode: false,
    quoteToken: SOL_MINT,
    decimals: t.decimals,
    liquidity: { quote: (Number(solLamports) / 1e9) * 2, usd: live ? liquidityUsd(t, solUsd) : 0 },
    price: { quote: pSol, usd: pSol * solUsd },
    marketCap: { quote: live ? marketCapUsd(t, solUsd) / solUsd : 0, usd: live ? marketCapUsd(t, solUsd) : 0 },
    ...(amm
      ? {}
      : {
          curvePercentage: curvePct(t),
          curve: {
            realSolReserves: t.curve.realSol.toString(),
            realTokenReserves: t.curve.realToken.toString(),
            virtualSolReserves: t.curve.virtualSol.toString(),
            virtualTokenReserves: t.curve.virtualToken.toString(),
          },
        }),
    reserves: amm ? { sol: amm.sol.toString(), token: amm.token.toString() } : undefined,
    creation: amm
      ? { creator: t.deployer, created_tx: amm.createdTx, created_time: amm.createdAt }
      : { creator: t.deployer, created_tx: t.createdTx, created_time: t.createdAt },
    createdAt: amm ? amm.createdAt : t.createdAt,
    lastUpdated: state.now,
  };
}

/** `{name, symbol, mint, ...}`: the token part of token records. */
export function tokenMeta(t: TokenState): JsonObject {
  return {
    name: t.name,
    symbol: t.symbol,
    mint: t.mint,
    decimals: t.decimals,
    image: t.image,
    description: `${t.name} on ${t.launchpad}`,
    creator: t.deployer,
    createdOn: t.launchpad,
    createdAt: t.createdAt,
    hasSocials: t.hasSocials,
    ...(t.hasSocials ? { twitter: `https://x.invalid/${t.symbol.toLowerCase()}`, website: `https://${t.symbol.toLowerCase()}.invalid` } : {}),
  };
}

/** `{token, pools}`, primary pool first (the AMM after graduation). */
export function tokenWithPools(state: MarketState, t: TokenState): JsonObject {
  const pools = t.amm ? [poolView(state, t, 'amm'), poolView(state, t, 'curve')] : [poolView(state, t, 'curve')];
  return { token: tokenMeta(t), pools };
}

/** The risk object, from holdings and the lifecycle. */
export function riskView(t: TokenState): JsonObject {
  const snipers = roleBalance(t, 'sniper');
  const insiders = roleBalance(t, 'insider');
  const bundlers = roleBalance(t, 'bundler');
  const dev = t.balances.get(t.deployer) ?? 0n;
  const top10 = holdersByBalance(t)
    .slice(0, 10)
    .reduce((a, [, b]) => a + b, 0n);
  const risks: JsonObject[] = [{ name: 'Launchpad contract', description: 'The token was created on a launchpad contract', level: 'warning', score: 10 }];
  if (t.status !== 'graduated')
    risks.push({ name: 'Incomplete bonding curve', description: 'No DEX pool yet: liquidity is locked in the curve', level: 'danger', score: 4000 });
  if (t.rugged) risks.push({ name: 'Rugged', description: 'Deployer and insiders sold their supply', level: 'danger', score: 10000 });
  const total = risks.reduce((a, r) => a + (r['score'] as number), 0);
  return {
    snipers: { count: snipers.wallets.length, totalBalance: fromRaw(snipers.raw, t.decimals), totalPercentage: pctOfSupply(t, snipers.raw) },
    insiders: { count: insiders.wallets.length, totalBalance: fromRaw(insiders.raw, t.decimals), totalPercentage: pctOfSupply(t, insiders.raw) },
    bundlers: { count: bundlers.wallets.length, totalBalance: fromRaw(bundlers.raw, t.decimals), totalPercentage: pctOfSupply(t, bundlers.raw) },
    top10: pctOfSupply(t, top10),
    dev: { amount: fromRaw(dev, t.decimals), percentage: pctOfSupply(t, dev) },
    rugged: t.rugged,
    risks,
    score: Math.min(10, Math.max(1, Math.round(Math.log10(total + 1) * 2.5))),
    jupiterVerified: false,
  };
}

/** A swap row as served in `trades` and streamed in `transaction:*` rooms. */
export function tradeRow(state: MarketState, tr: TradeRecord, enrich: boolean, token?: TokenState): JsonObject {
  const t = token ?? state.tokens.get(tr.mint);
  const decimals = t?.decimals ?? 6;
  return {
    tx: tr.tx,
    type: tr.side,
    wallet: tr.wallet,
    pool: tr.pool,
    program: tr.market,
    token: tr.mint,
    amount: fromRaw(tr.tokenRaw, decimals),
    amountRaw: tr.tokenRaw.toString(),
    solAmount: fromRaw(tr.solLamports, 9),
    priceUsd: tr.priceUsd,
    priceSol: tr.priceSol,
    volume: tr.volumeUsd,
    volumeSol: Number(tr.solLamports) / 1e9,
    time: tr.time,
    slot: tr.slot,
    ...(enrich ? { identity: identityOf(state, tr.wallet, t) } : {}),
  };
}

/**
 * A swap as the Datastream's `transaction:*` rooms send it (the service's documented shape, typed by
 * the client's `SwapEvent`): amounts as numbers and the token as a `{from, to}` pair, where `from`
 * is what the wallet spent (SOL on a buy) and `to` what it received.
 */
export function streamSwap(state: MarketState, tr: TradeRecord, enrich: boolean, token?: TokenState): SwapEvent & JsonObject {
  const t = token ?? state.tokens.get(tr.mint);
  const decimals = t?.decimals ?? 6;
  const tokenAmount = Number(fromRaw(tr.tokenRaw, decimals));
  const solAmount = Number(tr.solLamports) / 1e9;
  const solUsd = state.settings.solUsd;
  const tokenSide = { name: t?.name ?? '', symbol: t?.symbol ?? '', address: tr.mint, decimals, amount: tokenAmount, price: { usd: tr.priceUsd } };
  const solSide = { name: 'Wrapped SOL', symbol: 'SOL', address: SOL_MINT, decimals: 9, amount: solAmount, price: { usd: solUsd } };
  return {
    tx: tr.tx,
    type: tr.side,
    wallet: tr.wallet,
    pool: tr.pool,
    program: tr.market,
    amount: tokenAmount,
    priceUsd: tr.priceUsd,
    volume: tr.volumeUsd,
    solVolume: solAmount,
    time: tr.time,
    token: tr.side === 'buy' ? { from: solSide, to: tokenSide } : { from: tokenSide, to: solSide },
    ...(enrich ? { identity: identityOf(state, tr.wallet, t) } : {}),
  };
}

/** A liquidity event, in the spec's shape. */
export function liquidityRow(state: MarketState, e: LiquidityRecord, enrich: boolean): LiquidityEvent & JsonObject {
  const t = state.tokens.get(e.mint);
  const decimals = t?.decimals ?? 6;
  const tokens: (LiquidityTokenAmount & JsonObject)[] = [];
  if (e.tokenRaw > 0n) tokens.push({ address: e.mint, amount: fromRaw(e.tokenRaw, decimals), amountRaw: e.tokenRaw.toString(), decimals });
  if (e.solLamports > 0n) tokens.push({ address: SOL_MINT, amount: fromRaw(e.solLamports, 9), amountRaw: e.solLamports.toString(), decimals: 9 });
  return {
    tx: e.tx,
    type: e.type,
    program: e.program,
    programId: AMM_PROGRAM_ID,
    instruction: e.type === 'add_liquidity' ? 'deposit' : 'withdraw',
    pool: e.pool,
    wallet: e.wallet,
    time: e.time,
    slot: e.slot,
    amountBasis: 'transfer',
    tokens,
    ...(enrich ? { identity: identityOf(state, e.wallet, t) } : {}),
  };
}

export const AMM_PROGRAM_ID = 'AMMvenueA1111111111111111111111111111111111';

/** Price of the token now in USD (0 for unknown). */
export function tokenPriceUsd(state: MarketState, t: TokenState): number {
  return priceUsd(t, state.settings.solUsd);
}
