/**
 * One model step (one slot): due migrations, launches, trades of every live token, rugs, liquidity
 * actions and DCA fills. All randomness comes from the state's seeded source, in a fixed order.
 */
import type { Random, UnixMs } from '../../core/index.js';
import { simAddress, simSignature } from '../sim-ids.js';
import { emit, eventTime, slotAt, type MarketState } from './market-state.js';
import type { TokenState, TraderRole } from './model-types.js';
import { applySwap, finishMigration, planSwap, recordLiquidity } from './swap-executor.js';
import { addRole } from './holdings.js';
import { createToken } from './token-factory.js';
import { addWallet, pickWallet } from './trader-population.js';
import { stepDca } from './dca-dynamics.js';
import { stepPrediction } from './prediction-model.js';

/** Knobs the fault layer sets on the model (seeded like everything else). */
export interface ModelFaults {
  /** Share of liquidity actions that are streamed but vanish on a fork (never in REST history). */
  liquidityForkShare: number;
}

export function poisson(r: Random, lambda: number): number {
  if (lambda <= 0) return 0;
  const limit = Math.exp(-lambda);
  let k = 0;
  let p = r.next();
  while (p > limit) {
    k += 1;
    p *= r.next();
  }
  return k;
}

/** Runs the model for the slot starting at `at`. */
export function stepMarket(state: MarketState, at: UnixMs, faults: ModelFaults): void {
  state.now = at;
  state.subMs = 0;
  const r = state.random;
  const s = state.settings;
  const slot = slotAt(state, at);
  const slotSec = s.slotMs / 1000;
  for (const t of state.active) if (t.status === 'migrating' && t.graduatedAt !== undefined && t.graduatedAt <= at) finishMigration(state, t, at);
  const launches = poisson(r, (s.launchesPerHour * s.slotMs) / 3_600_000);
  for (let i = 0; i < launches; i++) launch(state, at, slot);
  for (const t of state.active) {
    if (t.status === 'migrating') continue;
    if (t.rugAt !== undefined && !t.rugged && t.rugAt <= at) rug(state, t, at, slot);
    if (slot - t.createdSlot <= 2 && slot > t.createdSlot) {
      const n = r.int(0, 2);
      for (let i = 0; i < n; i++) trade(state, t, pickWallet(state, 'sniper').address, 'buy', r.int(5, 30) * 100_000_000, at, slot, 'sniper');
    }
    const n = poisson(r, t.activity * slotSec);
    for (let i = 0; i < n && isTradable(t); i++) randomTrade(state, t, at, slot);
    if (t.amm && r.chance(0.004 * slotSec)) liquidityAction(state, t, at, faults);
    decay(t, slotSec, at);
  }
  if (state.active.some((t) => !t.alive)) state.active = state.active.filter((t) => t.alive);
  pruneHistory(state, at);
  stepDca(state, at, slot, (t, wallet, lamports) => trade(state, t, wallet, 'buy', lamports, at, slot, 'dca'));
  stepPrediction(state, at);
}

/** Rows kept per token however old, so every token keeps some history. */
export const MIN_ROWS_PER_TOKEN = 50;

/** Whether the step ending at `at` crossed a multiple of `everyMs` (simulated time). */
const crossed = (at: number, slotMs: number, everyMs: number): boolean => Math.floor(at / everyMs) !== Math.floor((at - slotMs) / everyMs);

/**
 * Every `tradePruneEveryMs` (default a simulated hour): trade and liquidity rows older than
 * `tradeRetentionMs` go (keeping each token's last rows). Once a simulated hour: old activity
 * buckets are compacted or dropped, and dead tokens retire.
 */
function pruneHistory(state: MarketState, at: UnixMs): void {
  const s = state.settings;
  if (crossed(at, s.slotMs, s.tradePruneEveryMs)) {
    const horizon = at - s.tradeRetentionMs;
    for (const rows of state.tradesByToken.values()) pruneRows(rows, horizon);
    for (const rows of state.liquidityByToken.values()) pruneRows(rows, horizon);
  }
  if (!crossed(at, s.slotMs, 3_600_000)) return;
  state.activity.prune(at);
  retireDeadTokens(state, at);
}

function pruneRows(rows: { readonly time: number }[], horizon: number): void {
  if (rows.length <= MIN_ROWS_PER_TOKEN || rows[0]!.time >= horizon) return;
  let cut = 0;
  while (cut < rows.length - MIN_ROWS_PER_TOKEN && rows[cut]!.time < horizon) cut += 1;
  rows.splice(0, cut);
}

/** Tokens that stopped trading more than `tokenRetentionMs` ago leave the market entirely (REST, PnL, DCA). */
function retireDeadTokens(state: MarketState, at: UnixMs): void {
  const horizon = at - state.settings.tokenRetentionMs;
  const retired = state.launched.filter((t) => !t.alive && t.diedAt !== undefined && t.diedAt < horizon);
  if (retired.length === 0) return;
  for (const t of retired) {
    state.tokens.delete(t.mint);
    state.poolToMint.delete(t.curve.poolId);
    if (t.amm) state.poolToMint.delete(t.amm.poolId);
    state.tradesByToken.delete(t.mint);
    state.liquidityByToken.delete(t.mint);
    state.pnl.dropToken(t.mint);
    for (const [address, o] of state.dca) if (o.outputMint === t.mint) state.dca.delete(address);
    state.retired.set(t.mint, at);
  }
  for (const mint of state.retired.keys()) {
    if (state.retired.size <= state.settings.maxRetiredTokens) break;
    state.retired.delete(mint);
  }
  forgetInsiders(state, retired);
  const gone = new Set(retired);
  state.launched.splice(0, state.launched.length, ...state.launched.filter((t) => !gone.has(t)));
}

/** Insider wallets are made for one launch: they leave the population with their token. */
function forgetInsiders(state: MarketState, retired: readonly TokenState[]): void {
  let dropped = false;
  for (const t of retired) {
    for (const [wallet, roles] of t.roles) {
      if (!roles.has('insider') || state.wallets.get(wallet)?.role !== 'insider') continue;
      state.wallets.delete(wallet);
      dropped = true;
    }
  }
  if (!dropped) return;
  const list = state.byRole.get('insider');
  if (list) list.splice(0, list.length, ...list.filter((w) => state.wallets.has(w.address)));
}

function launch(state: MarketState, at: UnixMs, slot: number): void {
  const r = state.random;
  const t = createToken(state, at);
  emit(state, { kind: 'launched', token: t, at });
  addRole(t, t.deployer, 'developer');
  trade(state, t, t.deployer, 'buy', r.int(2, 30) * 100_000_000, at, slot, 'developer', t.createdTx);
  if (r.chance(state.settings.bundledShare)) {
    const n = r.int(3, 8);
    for (let i = 0; i < n; i++) trade(state, t, pickWallet(state, 'bundler').address, 'buy', r.int(3, 15) * 100_000_000, at, slot, 'bundler', t.createdTx);
  }
  const insiders = r.int(0, 3);
  for (let i = 0; i < insiders; i++) {
    const w = addWallet(state, 'insider', simAddress(r));
    trade(state, t, w.address, 'buy', r.int(5, 20) * 100_000_000, at, slot, 'insider');
  }
}

const BUYER_ROLES: readonly TraderRole[] = ['retail', 'retail', 'retail', 'retail', 'retail', 'retail', 'bot', 'bot', 'kol', 'retail'];

function randomTrade(state: MarketState, t: TokenState, at: UnixMs, slot: number): void {
  const r = state.random;
  if (t.holderList.length === 0 || r.chance(t.buyBias)) {
    const role = r.pick(BUYER_ROLES);
    const base = role === 'kol' ? 1_000_000_000 : role === 'bot' ? 200_000_000 : 50_000_000;
    const scale = t.fate === 'runner' && t.status === 'curve' ? 2 : 1;
    const lamports = Math.floor(base * scale * 2 ** (r.next() * 5));
    trade(state, t, pickWallet(state, role).address, 'buy', lamports, at, slot, role);
    return;
  }
  const wallet = r.pick(t.holderList);
  const bal = t.balances.get(wallet) ?? 0n;
  const pct = BigInt(r.int(20, 100));
  trade(state, t, wallet, 'sell', (bal * pct) / 100n, at, slot);
}

/** Executes a model trader's swap through the same pricing as everyone else. */
function trade(
  state: MarketState,
  t: TokenState,
  wallet: string,
  side: 'buy' | 'sell',
  amountIn: bigint | number,
  at: UnixMs,
  slot: number,
  role?: TraderRole,
  tx?: string,
): void {
  const plan = planSwap(t, side, BigInt(amountIn));
  if (!plan) return;
  if (role && side === 'buy') addRole(t, wallet, role);
  applySwap(state, t, {
    wallet,
    side,
    solLamports: side === 'buy' ? plan.netIn : plan.out,
    tokenRaw: side === 'buy' ? plan.out : plan.netIn,
    tx: tx ?? simSignature(state.random),
    slot,
    at: eventTime(state),
    external: false,
    grossIn: plan.grossIn,
  });
}

function rug(state: MarketState, t: TokenState, at: UnixMs, slot: number): void {
  t.rugged = true;
  for (const [w, roles] of t.roles) {
    if (!roles.has('developer') && !roles.has('insider')) continue;
    const bal = t.balances.get(w) ?? 0n;
    if (bal > 0n) trade(state, t, w, 'sell', bal, at, slot);
  }
  t.activity *= 0.2;
  t.buyBias = 0.3;
}

function liquidityAction(state: MarketState, t: TokenState, at: UnixMs, faults: ModelFaults): void {
  const r = state.random;
  const amm = t.amm!;
  const add = r.chance(0.6);
  const permille = BigInt(r.int(5, 40));
  const sol = (amm.sol * permille) / 1000n;
  const tok = (amm.token * permille) / 1000n;
  const canonical = !r.chance(faults.liquidityForkShare);
  recordLiquidity(
    state,
    t,
    add ? 'add_liquidity' : 'remove_liquidity',
    pickWallet(state, 'lp').address,
    sol,
    tok,
    simSignature(r),
    eventTime(state),
    canonical,
  );
}

/** False while a completed curve migrates (trades may change the status mid-loop). */
function isTradable(t: TokenState): boolean {
  return t.status !== 'migrating';
}

function decay(t: TokenState, slotSec: number, at: UnixMs): void {
  if (t.fate === 'runner' && t.status === 'curve' && !t.rugged) return;
  const halfLifeSec = t.status === 'graduated' ? 900 : 120;
  t.activity *= 0.5 ** (slotSec / halfLifeSec);
  if (t.status === 'curve') t.buyBias = Math.max(0.42, t.buyBias - 0.0005 * slotSec);
  if (t.activity < 0.01) {
    t.alive = false;
    t.diedAt = at;
  }
}
