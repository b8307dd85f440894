/**
 * Whether an order may become an intent, asked in one order: the engine still takes orders, the
 * runtime's admission (paused entries, a halted deployment), no unresolved buy of the same token by
 * the strategy, an amount that is a bigint > 0, then the risk gate on the state it reads (portfolio,
 * market view, intents in flight, the last buy time of each token). A denial is a value, written to
 * the decision log, counted and logged (repeats summarised).
 */
import { isLamports, isRawAmount, type Clock, type ErrorCode, type Logger, type UnixMs } from '../../core/index.js';
import type { DecisionSink } from '../logs/decision-log.js';
import type { EngineStats } from '../logs/engine-stats.js';
import type { IntentsInFlight } from './intents-in-flight.js';
import type { MarketView } from '../market/market-view.js';
import type { Portfolio } from '../market/portfolio.js';
import type { RepeatLimiter } from '../logs/repeat-limiter.js';
import type { RiskGate, RiskRequest, RiskState } from './risk-gate.js';
import type { OrderResult } from '../strategy/strategy-api.js';

interface PlaceCommon {
  readonly strategyId: string;
  readonly mint: string;
  readonly reason: string;
  readonly slippageBps?: number | undefined;
}

/**
 * An order as a strategy wrote it. The amount is unchecked (strategy code, maybe plain JS):
 * admission checks it (a bigint > 0) and brands it, or denies with RISK_INVALID_AMOUNT.
 */
export type PlaceRequest =
  | (PlaceCommon & {
      readonly side: 'buy';
      /** Lamports of SOL to spend. */
      readonly spendLamports: bigint;
      /** A buy while this strategy's earlier buy of the token is unresolved (default: denied). */
      readonly allowConcurrent?: boolean | undefined;
    })
  | (PlaceCommon & {
      readonly side: 'sell';
      /** Raw token units to sell. */
      readonly sellRaw: bigint;
    });

/**
 * The runtime's admission check, asked before the risk gate for every order: a denial (coded) is
 * logged, counted and written to the decision log like a risk denial.
 */
export type Admission = (side: 'buy' | 'sell') => { readonly code: ErrorCode; readonly reason: string } | undefined;

/** An order refused before it became an intent. */
export type OrderDenied = Extract<OrderResult, { readonly ok: false }>;

export interface OrderAdmission {
  /** The order's risk request (amount branded) when every check passes; the denial, already logged and counted, otherwise. */
  admit(req: PlaceRequest, at: UnixMs): RiskRequest | OrderDenied;
  /** A buy of `mint` filled at `at` (block time): the gate's cooldown measures from it. */
  bought(mint: string, at: UnixMs): void;
  /** No new orders after this (the engine is stopping). */
  close(): void;
  /** What the risk gate reads (portfolio, intents in flight, last buys): `ctx.account()` reads it too. */
  readonly riskState: RiskState;
}

export interface OrderAdmissionDeps {
  readonly clock: Clock;
  readonly gate: RiskGate;
  readonly market: MarketView;
  readonly portfolio: Portfolio;
  readonly inFlight: IntentsInFlight;
  readonly admission: Admission | undefined;
  readonly decisions: DecisionSink;
  readonly stats: EngineStats;
  readonly log: Logger;
  /** Summarises repeated log lines (shared with the order flow's other log lines). */
  readonly repeats: RepeatLimiter;
}

/** Slack past twice the cooldown before a token's last buy time is forgotten (block time against the run clock). */
const LAST_BUY_MARGIN_MS = 60_000;

/** The order's amount as the decision log writes it. */
export const amountText = (req: PlaceRequest): string => String(req.side === 'buy' ? req.spendLamports : req.sellRaw);

/** The risk request for `req` with its amount branded, when the amount is a bigint > 0; undefined otherwise. */
function checkAmount(req: PlaceRequest, at: UnixMs): RiskRequest | undefined {
  const { strategyId, mint } = req;
  if (req.side === 'buy')
    return isLamports(req.spendLamports) && req.spendLamports > 0n ? { side: 'buy', strategyId, mint, spendLamports: req.spendLamports, at } : undefined;
  return isRawAmount(req.sellRaw) && req.sellRaw > 0n ? { side: 'sell', strategyId, mint, sellRaw: req.sellRaw, at } : undefined;
}

/** Why an amount that is not a bigint > 0 is refused, with the fix. */
function invalidAmountReason(req: PlaceRequest): string {
  const amount: unknown = req.side === 'buy' ? req.spendLamports : req.sellRaw;
  if (typeof amount === 'bigint') return 'amount must be > 0';
  const field = req.side === 'buy' ? 'lamports' : 'amountRaw';
  return `${field} must be a bigint > 0 (such as 100_000_000n), got a ${typeof amount}`;
}

export function createOrderAdmission(d: OrderAdmissionDeps): OrderAdmission {
  const { clock, gate, inFlight, portfolio } = d;
  let closed = false;
  /**
   * Time of the last buy fill per token, for the gate's cooldown only (kept only with one), the
   * least recently bought first; a token whose last buy is past every cooldown window is forgotten.
   */
  const lastBuy = new Map<string, UnixMs>();
  const cooldownMs = gate.cooldownMs;

  const riskState: RiskState = {
    market: d.market,
    totals: () => portfolio.totals(),
    openOn: (mint) => portfolio.openOn(mint),
    position: (s, m) => portfolio.position(s, m),
    pendingBuyLamports: (mint) => inFlight.buyLamports(mint),
    pendingSellRaw: (s, m) => inFlight.sellRaw(s, m),
    openingPositions: () => {
      // a pair whose first buy already filled is an open position (counted in the totals), not an opening one
      let n = 0;
      for (const p of inFlight.openingPairs()) if ((portfolio.position(p.strategyId, p.mint)?.tokenRaw ?? 0n) === 0n) n++;
      return n;
    },
    opening: (s, m) => inFlight.opening(s, m),
    lastBuyAt: (m) => lastBuy.get(m),
  };

  /** A denied order: decision log, stats, the log line (repeats summarised). Not a closure per order: admit() runs for every decision. */
  const deny = (req: PlaceRequest, at: UnixMs, code: string, reason: string): OrderDenied => {
    d.decisions({ kind: 'denied', at, strategyId: req.strategyId, side: req.side, mint: req.mint, amountIn: amountText(req), code, reason });
    d.stats.denied({ at, strategyId: req.strategyId, mint: req.mint, code, reason });
    const r = d.repeats.admit(`denied\u0000${req.strategyId}\u0000${req.side}\u0000${code}`);
    if (r.write) {
      const more = r.held > 0 ? ` (and ${r.held} more ${code} denial(s) of ${req.strategyId} held back from the log since the last such line)` : '';
      d.log.info(
        { strategyId: req.strategyId, mint: req.mint, side: req.side, code, ...(r.held > 0 ? { repeated: r.held } : {}) },
        `order denied: ${reason}${more}`,
      );
    }
    return { ok: false, code, reason };
  };

  return {
    admit(req, at) {
      if (closed) return deny(req, at, 'ENGINE_STOPPED', 'the engine is stopping: no new orders');
      const refused = d.admission?.(req.side);
      if (refused) return deny(req, at, refused.code, refused.reason);
      const inFlightBuy = req.side === 'buy' && req.allowConcurrent !== true ? inFlight.buyOf(req.strategyId, req.mint) : undefined;
      if (inFlightBuy !== undefined) {
        return deny(
          req,
          at,
          'ENGINE_BUY_IN_FLIGHT',
          `buy ${inFlightBuy} of ${req.mint} by this strategy is unresolved; wait for onFill or onIntentFailed, or pass allowConcurrent: true`,
        );
      }
      const checked = checkAmount(req, at);
      if (checked === undefined) return deny(req, at, 'RISK_INVALID_AMOUNT', invalidAmountReason(req));
      const decision = gate.check(checked, riskState);
      if (!decision.allowed) return deny(req, at, decision.code, decision.reason);
      return checked;
    },
    bought(mint, at) {
      if (cooldownMs === undefined) return;
      lastBuy.delete(mint);
      lastBuy.set(mint, at);
      // fill times are block times in live, which may run ahead of or behind the run clock: a minute's margin
      const before = clock.now() - 2 * cooldownMs - LAST_BUY_MARGIN_MS;
      for (const [m, t] of lastBuy) {
        if (t >= before) break;
        lastBuy.delete(m);
      }
    },
    close: () => void (closed = true),
    riskState,
  };
}
