/**
 * The risk gate: every intent passes here before an executor sees it. It answers with a value,
 * never an exception: allowed, or denied with a stable reason code and its context.
 */
import type { ErrorCode, Lamports, RawAmount, UnixMs } from '../../core/index.js';
import type { MarketView } from '../market/market-view.js';
import type { PortfolioTotals, Position } from '../market/portfolio.js';
import { createRiskDay, type RiskDay } from './risk-day.js';

/** Limits and filters. Every optional limit is off when undefined. */
export interface RiskLimits {
  /** Largest buy, in lamports. */
  readonly maxTradeLamports?: Lamports | undefined;
  readonly maxOpenPositions?: number | undefined;
  /** Cap on the cost basis of all open positions plus buys in flight. */
  readonly maxExposureLamports?: Lamports | undefined;
  /** Cap on the cost basis held in one token (all strategies) plus buys in flight. */
  readonly maxPerTokenLamports?: Lamports | undefined;
  /** No new buy of a token within this time after the last buy of it. */
  readonly cooldownMs?: number | undefined;
  /** Buys halt for the rest of the risk day once the day's loss reaches this (realised + unrealised). */
  readonly dailyLossLimitLamports?: Lamports | undefined;
  readonly allowMints?: readonly string[] | undefined;
  readonly denyMints?: readonly string[] | undefined;
  readonly maxRiskScore?: number | undefined;
  readonly maxBundlerPct?: number | undefined;
  readonly maxSniperPct?: number | undefined;
  readonly maxInsiderPct?: number | undefined;
  readonly maxTop10Pct?: number | undefined;
  readonly maxDevHoldingPct?: number | undefined;
  readonly minLiquidityUsd?: number | undefined;
  readonly minHolders?: number | undefined;
  /** Deny a buy when a configured safety filter has no data yet (conservative). Default false. */
  readonly requireSafetyData?: boolean | undefined;
}

export type RiskCode = Extract<ErrorCode, `RISK_${string}`>;

export type RiskDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly code: RiskCode; readonly reason: string; readonly context: Readonly<Record<string, string | number | boolean>> };

interface RiskRequestCommon {
  readonly strategyId: string;
  readonly mint: string;
  readonly at: UnixMs;
}

/** An order to check: a buy spends lamports, a sell sells raw tokens. */
export type RiskRequest =
  | (RiskRequestCommon & { readonly side: 'buy'; readonly spendLamports: Lamports })
  | (RiskRequestCommon & { readonly side: 'sell'; readonly sellRaw: RawAmount });

/** What the gate reads of the engine's state. */
export interface RiskState {
  readonly market: MarketView;
  totals(): PortfolioTotals;
  /** Open positions on one token, across strategies (the per-token limit sums their cost). */
  openOn(mint: string): readonly Position[];
  position(strategyId: string, mint: string): Position | undefined;
  /** Lamports of buys handed to the executor and not yet filled or failed, total and per token. */
  pendingBuyLamports(mint?: string): Lamports;
  /** Raw tokens of sells in flight for this strategy and token. */
  pendingSellRaw(strategyId: string, mint: string): RawAmount;
  /**
   * (strategy, token) pairs with a buy in flight that would open a position not open yet: with
   * `totals().openPositions` it counts positions as the portfolio keys them, per (strategy, token).
   */
  openingPositions(): number;
  /** Whether this strategy has a buy of this token in flight that opens its position. */
  opening(strategyId: string, mint: string): boolean;
  lastBuyAt(mint: string): UnixMs | undefined;
}

export interface RiskGate {
  check(req: RiskRequest, state: RiskState): RiskDecision;
  /** Stops every new buy (sells that reduce positions still pass). */
  kill(reason: string): void;
  resume(): void;
  readonly killed: boolean;
  /** True after the daily loss limit tripped, until the next risk-day boundary. */
  halted(at: UnixMs): boolean;
  /** The durable risk state (day boundary, day-start equity, halt, kill switch). */
  readonly day: RiskDay;
  /** The buy cooldown (`RiskState.lastBuyAt` is read only with one); undefined: no cooldown. */
  readonly cooldownMs: number | undefined;
  /** The limits it checks (read by `ctx.account()`). */
  readonly limits: RiskLimits;
}

/** A safety filter: its limit (off when undefined), the market view's figure it limits, and how a denial names it. */
interface SafetyCheck {
  readonly code: RiskCode;
  readonly max: number | undefined;
  readonly value: (mint: string, s: RiskState) => number | undefined;
  readonly what: string;
}

/** The one answer of every allowed order (frozen, shared: a check that passes allocates nothing). */
const ALLOWED: RiskDecision = Object.freeze({ allowed: true });

const deny = (code: RiskCode, reason: string, context: Record<string, string | number | boolean>): RiskDecision => ({ allowed: false, code, reason, context });

/** Creates the gate for `limits`; kill switch and daily halt live in `day` (default: in memory, UTC midnight). */
export function createRiskGate(limits: RiskLimits, day: RiskDay = createRiskDay()): RiskGate {
  const allow = limits.allowMints && limits.allowMints.length > 0 ? new Set(limits.allowMints) : undefined;
  const denyList = new Set(limits.denyMints ?? []);

  const allSafetyChecks: readonly SafetyCheck[] = [
    { code: 'RISK_SAFETY_RISK_SCORE', max: limits.maxRiskScore, value: (m, s) => s.market.get(m)?.riskScore, what: 'risk score' },
    { code: 'RISK_SAFETY_BUNDLERS', max: limits.maxBundlerPct, value: (m, s) => s.market.get(m)?.safety.bundlers, what: 'bundler share %' },
    { code: 'RISK_SAFETY_SNIPERS', max: limits.maxSniperPct, value: (m, s) => s.market.get(m)?.safety.sniper, what: 'sniper share %' },
    { code: 'RISK_SAFETY_INSIDERS', max: limits.maxInsiderPct, value: (m, s) => s.market.get(m)?.safety.insider, what: 'insider share %' },
    { code: 'RISK_SAFETY_TOP10', max: limits.maxTop10Pct, value: (m, s) => s.market.get(m)?.safety.top10, what: 'top-10 share %' },
    { code: 'RISK_SAFETY_DEV_HOLDING', max: limits.maxDevHoldingPct, value: (m, s) => s.market.get(m)?.safety.dev_holding, what: 'dev holding %' },
  ];
  // the configured filters only, in the same order: a buy with none configured loops over nothing
  const safetyChecks = allSafetyChecks.filter((c): c is SafetyCheck & { readonly max: number } => c.max !== undefined);

  const gate: RiskGate = {
    day,
    limits,
    cooldownMs: limits.cooldownMs,
    get killed() {
      return day.killReason !== undefined;
    },
    kill(reason) {
      day.kill(reason);
    },
    resume() {
      day.unkill();
    },
    halted: (at) => day.halted(at),
    check(req, s) {
      const { mint } = req;
      const amountIn = req.side === 'buy' ? req.spendLamports : req.sellRaw;
      if (amountIn <= 0n) return deny('RISK_INVALID_AMOUNT', 'amount must be > 0', { amountIn: amountIn.toString() });
      if (req.side === 'sell') {
        const held = s.position(req.strategyId, mint)?.tokenRaw ?? 0n;
        const free = held - s.pendingSellRaw(req.strategyId, mint);
        if (req.sellRaw > free) {
          return deny('RISK_NO_POSITION', `sell of ${req.sellRaw} raw exceeds the ${free} raw held and not already being sold`, {
            mint,
            heldRaw: held.toString(),
            freeRaw: free.toString(),
          });
        }
        return ALLOWED;
      }
      const spend = req.spendLamports;
      const killedReason = day.killReason;
      if (killedReason !== undefined) return deny('RISK_KILL_SWITCH', `kill switch is on: ${killedReason}`, { reason: killedReason });
      const totals = s.totals();
      const dayStartEquity = day.dayStartEquity(req.at, totals.equityLamports);
      if (day.halted(req.at))
        return deny('RISK_DAILY_LOSS_HALT', 'buys are halted for the rest of the risk day after the daily loss limit', {
          dayStartedAt: day.snapshot().dayStartedAt,
        });
      if (limits.dailyLossLimitLamports !== undefined) {
        const loss = dayStartEquity - totals.equityLamports;
        if (loss >= limits.dailyLossLimitLamports) {
          day.halt(req.at);
          return deny(
            'RISK_DAILY_LOSS_HALT',
            `today's loss ${loss} lamports reached the limit ${limits.dailyLossLimitLamports}; buys halt until the next risk-day boundary`,
            { lossLamports: loss.toString() },
          );
        }
      }
      if (denyList.has(mint)) return deny('RISK_TOKEN_DENIED', 'token is on the deny list', { mint });
      if (allow && !allow.has(mint)) return deny('RISK_TOKEN_NOT_ALLOWED', 'token is not on the allow list', { mint });
      if (limits.maxTradeLamports !== undefined && spend > limits.maxTradeLamports) {
        return deny('RISK_TRADE_SIZE', `buy of ${spend} lamports exceeds maxTradeLamports ${limits.maxTradeLamports}`, {
          amountIn: spend.toString(),
          max: limits.maxTradeLamports.toString(),
        });
      }
      if (spend > totals.cashLamports - s.pendingBuyLamports()) {
        return deny('RISK_INSUFFICIENT_CASH', `buy of ${spend} lamports exceeds free cash`, { cash: totals.cashLamports.toString() });
      }
      // A position is the portfolio's (strategy, token) pair: another strategy's buy of the same token
      // opens a position of its own, so only this strategy's holding or opening buy makes it not new.
      const holding = s.position(req.strategyId, mint);
      const isNewPosition = (holding?.tokenRaw ?? 0n) === 0n && !s.opening(req.strategyId, mint);
      if (limits.maxOpenPositions !== undefined && isNewPosition) {
        const open = totals.openPositions + s.openingPositions();
        if (open >= limits.maxOpenPositions)
          return deny('RISK_MAX_OPEN_POSITIONS', `${open} positions open or opening; maxOpenPositions is ${limits.maxOpenPositions}`, {
            open,
            max: limits.maxOpenPositions,
          });
      }
      if (limits.maxExposureLamports !== undefined) {
        const after = totals.openCostLamports + s.pendingBuyLamports() + spend;
        if (after > limits.maxExposureLamports)
          return deny('RISK_MAX_EXPOSURE', `exposure would be ${after} lamports; maxExposureLamports is ${limits.maxExposureLamports}`, {
            after: after.toString(),
            max: limits.maxExposureLamports.toString(),
          });
      }
      if (limits.maxPerTokenLamports !== undefined) {
        let inToken = s.pendingBuyLamports(mint) + spend;
        for (const p of s.openOn(mint)) inToken += p.costLamports;
        if (inToken > limits.maxPerTokenLamports)
          return deny('RISK_TOKEN_LIMIT', `exposure to ${mint} would be ${inToken} lamports; maxPerTokenLamports is ${limits.maxPerTokenLamports}`, {
            mint,
            after: inToken.toString(),
          });
      }
      if (limits.cooldownMs !== undefined) {
        const last = s.lastBuyAt(mint);
        if (last !== undefined && req.at - last < limits.cooldownMs)
          return deny('RISK_COOLDOWN', `last buy of ${mint} was ${req.at - last} ms ago; cooldownMs is ${limits.cooldownMs}`, { mint, sinceMs: req.at - last });
      }
      for (const c of safetyChecks) {
        const v = c.value(mint, s);
        if (v === undefined) {
          if (limits.requireSafetyData) return deny(c.code, `${c.what} of ${mint} is not known yet and requireSafetyData is on`, { mint });
          continue;
        }
        if (v > c.max) return deny(c.code, `${c.what} of ${mint} is ${v}, above ${c.max}`, { mint, value: v, max: c.max });
      }
      const obs = s.market.get(mint);
      if (limits.minLiquidityUsd !== undefined) {
        const liq = obs?.liquidityUsd;
        if ((liq === undefined && limits.requireSafetyData) || (liq !== undefined && liq < limits.minLiquidityUsd)) {
          return deny('RISK_MIN_LIQUIDITY', `liquidity of ${mint} is ${liq ?? 'unknown'} USD, below ${limits.minLiquidityUsd}`, { mint });
        }
      }
      if (limits.minHolders !== undefined) {
        const h = obs?.safety.holders;
        if ((h === undefined && limits.requireSafetyData) || (h !== undefined && h < limits.minHolders)) {
          return deny('RISK_MIN_HOLDERS', `${mint} has ${h ?? 'unknown'} holders, below ${limits.minHolders}`, { mint });
        }
      }
      return ALLOWED;
    },
  };
  return gate;
}
