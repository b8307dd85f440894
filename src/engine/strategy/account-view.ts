/**
 * `ctx.account(mint?)`: cash, equity and exposure of the book, and the room left under each of the
 * risk gate's amount and count limits, read from the same state the gate checks (portfolio, buys in
 * flight, risk day), without changing it. `maxBuyLamports` is the largest buy those limits let
 * through now, so a strategy sizes or skips before it is denied.
 */
import type { Lamports, UnixMs } from '../../core/index.js';
import { DAY_MS } from '../orders/risk-day.js';
import type { RiskGate, RiskState } from '../orders/risk-gate.js';

/** Room left under each risk limit (`undefined`: the deployment sets no such limit). */
export interface AccountRoom {
  /** Positions that may still open: `maxOpenPositions` minus those open and opening (all strategies). */
  readonly openPositions: number | undefined;
  /** The largest single buy (`maxTradeSol`). */
  readonly tradeLamports: Lamports | undefined;
  /** What may still be added to exposure: `maxExposureSol` minus open cost and buys in flight. */
  readonly exposureLamports: Lamports | undefined;
  /** What may still go into the token asked about (`maxPerTokenSol`, all strategies); undefined without a token. */
  readonly tokenLamports: Lamports | undefined;
  /** Loss left today before buys halt (`dailyLossLimitSol` minus today's loss, realised and unrealised). */
  readonly dailyLossLamports: Lamports | undefined;
  /** Milliseconds until the token asked about may be bought again (`cooldown`); 0 when it may; undefined without a token or cooldown. */
  readonly cooldownMs: number | undefined;
}

/** The book as the risk gate sees it (`ctx.account()`); amounts in lamports. */
export interface Account {
  /** Cash of the book (paper: starting balance plus trades; live: the wallet's SOL as the engine counts it). */
  readonly cashLamports: Lamports;
  /** Cash less the buys in flight: what a new buy can spend. */
  readonly freeCashLamports: Lamports;
  /** Cash plus open positions at their last marks. */
  readonly equityLamports: bigint;
  /** Cost basis of open positions plus buys in flight (what `maxExposureSol` caps). */
  readonly exposureLamports: Lamports;
  /** Open positions of every strategy, and buys in flight that would open one. */
  readonly openPositions: number;
  /** Why buys are refused whatever their size (kill switch, daily-loss halt); undefined when they are not. */
  readonly buysHalted: string | undefined;
  readonly room: AccountRoom;
  /**
   * The largest buy of the token asked about (or of a new token) that the cash, size, exposure,
   * per-token and open-position limits allow now: 0 when halted, cooling down or out of room.
   * Token filters (allow/deny lists, safety, liquidity, holders) are not in it.
   */
  readonly maxBuyLamports: Lamports;
}

const room = (limit: bigint | undefined, used: bigint): Lamports | undefined =>
  limit === undefined ? undefined : ((limit > used ? limit - used : 0n) as Lamports);

/** The account of `strategyId` at `now`, optionally about one token. */
export function readAccount(gate: RiskGate, s: RiskState, strategyId: string, now: UnixMs, mint?: string): Account {
  const limits = gate.limits;
  const t = s.totals();
  const pendingBuys = s.pendingBuyLamports();
  const freeCash = t.cashLamports > pendingBuys ? t.cashLamports - pendingBuys : 0n;
  const exposure = t.openCostLamports + pendingBuys;
  const openPositions = t.openPositions + s.openingPositions();
  // the risk day as the gate would see it, without rolling it: a day not rolled yet has lost nothing
  const day = gate.day.snapshot();
  const sameDay = now < day.dayStartedAt + DAY_MS && now >= day.dayStartedAt;
  const loss = sameDay ? day.dayStartEquityLamports - t.equityLamports : 0n;
  const kill = gate.day.killReason;
  const buysHalted =
    kill !== undefined ? `kill switch: ${kill}` : gate.halted(now) ? 'daily loss limit reached: buys halt until the next risk-day boundary' : undefined;
  let inToken: bigint | undefined;
  let cooldownMs: number | undefined;
  let isNew = true;
  if (mint !== undefined) {
    inToken = s.pendingBuyLamports(mint);
    for (const p of s.openOn(mint)) inToken += p.costLamports;
    isNew = (s.position(strategyId, mint)?.tokenRaw ?? 0n) === 0n && s.pendingBuyLamports(mint) === 0n;
    if (gate.cooldownMs !== undefined) {
      const last = s.lastBuyAt(mint);
      cooldownMs = last === undefined ? 0 : Math.max(0, gate.cooldownMs - (now - last));
    }
  }
  const r: AccountRoom = {
    openPositions: limits.maxOpenPositions === undefined ? undefined : Math.max(0, limits.maxOpenPositions - openPositions),
    tradeLamports: limits.maxTradeLamports,
    exposureLamports: room(limits.maxExposureLamports, exposure),
    tokenLamports: inToken === undefined ? undefined : room(limits.maxPerTokenLamports, inToken),
    dailyLossLamports: room(limits.dailyLossLimitLamports, loss),
    cooldownMs,
  };
  let max = freeCash;
  for (const cap of [r.tradeLamports, r.exposureLamports, r.tokenLamports]) if (cap !== undefined && cap < max) max = cap;
  const blocked =
    buysHalted !== undefined || (cooldownMs ?? 0) > 0 || (isNew && r.openPositions === 0) || (r.dailyLossLamports !== undefined && r.dailyLossLamports === 0n);
  return {
    cashLamports: t.cashLamports as Lamports,
    freeCashLamports: freeCash as Lamports,
    equityLamports: t.equityLamports,
    exposureLamports: exposure as Lamports,
    openPositions,
    buysHalted,
    room: r,
    maxBuyLamports: (blocked ? 0n : max) as Lamports,
  };
}
