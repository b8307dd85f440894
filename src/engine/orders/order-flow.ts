/**
 * From a strategy's decision to the executor and back, in three modules around one piece of state:
 * - admission (order-admission.ts): engine open, the runtime's say, buy in flight, amount, risk gate;
 * - placement (order-placement.ts): the deterministic intent, the decision log, the submit;
 * - reporting (order-reports.ts): the execution reports that update the portfolio and the strategy;
 * - the intents in flight (intents-in-flight.ts), with running totals that count against the limits.
 * This file wires them and is the engine's one handle on them.
 */
import type { ExecutionReport } from './execution-port.js';
import type { ExitOrder } from '../exits/exit-manager.js';
import { createIntentsInFlight } from './intents-in-flight.js';
import { createOrderAdmission, type Admission, type PlaceRequest } from './order-admission.js';
import { createOrderPlacement, type OrderPlacementDeps } from './order-placement.js';
import { createOrderReports, type OrderReportsDeps } from './order-reports.js';
import { createRepeatLimiter } from '../logs/repeat-limiter.js';
import type { RiskGate, RiskState } from './risk-gate.js';
import type { OrderResult, PendingIntent } from '../strategy/strategy-api.js';

export type { Admission, PlaceRequest } from './order-admission.js';

export interface OrderFlow {
  place(req: PlaceRequest): OrderResult;
  /** Sells `fractionBps` of the free (not already being sold) amount of a position. */
  sellFraction(strategyId: string, mint: string, fractionBps: number, reason: string, slippageBps?: number): OrderResult;
  placeExit(o: ExitOrder): void;
  onReport(r: ExecutionReport): void;
  /** Intents handed over and not yet resolved. */
  pendingCount(): number;
  /** Whether a buy of `mint` is in flight (by any strategy). */
  buyingNow(mint: string): boolean;
  /** A strategy's intents in flight, optionally for one token. */
  pendingOf(strategyId: string, mint?: string): PendingIntent[];
  /** No new intents after this; reports still apply. */
  close(): void;
  /** The state the risk gate reads (for `ctx.account()`). */
  readonly riskState: RiskState;
}

/** What the order flow needs: each field is documented where it is used (placement, reporting); the rest is admission's. */
export interface OrderFlowDeps
  extends
    Omit<OrderPlacementDeps, 'inFlight' | 'admission' | 'onReport'>,
    Pick<OrderReportsDeps, 'exits' | 'onPositionOpened' | 'onPositionClosed' | 'onFill' | 'onIntentFailed'> {
  readonly gate: RiskGate;
  /** The runtime's say before the risk gate (paused entries, a halted deployment); undefined admits. */
  readonly admission: Admission | undefined;
  /** Signatures of fills restored into the portfolio at start (a report of one of them is not applied again). */
  readonly restoredSignatures?: Iterable<string>;
}

export function createOrderFlow(d: OrderFlowDeps): OrderFlow {
  const { clock, log, decisions, stats, portfolio, exits } = d;
  const inFlight = createIntentsInFlight();
  // repeated identical denials and refusals are summarised in the log (counted in full in the stats and the decision log)
  const repeats = createRepeatLimiter(clock);
  const admission = createOrderAdmission({
    clock,
    gate: d.gate,
    market: d.market,
    portfolio,
    inFlight,
    admission: d.admission,
    decisions,
    stats,
    log,
    repeats,
  });
  const onReport = createOrderReports({
    portfolio,
    exits,
    inFlight,
    admission,
    stats,
    log,
    decisions,
    repeats,
    onPositionOpened: d.onPositionOpened,
    onPositionClosed: d.onPositionClosed,
    onFill: d.onFill,
    onIntentFailed: d.onIntentFailed,
    restoredSignatures: d.restoredSignatures,
  });
  const placement = createOrderPlacement({
    clock,
    random: d.random,
    idPrefix: d.idPrefix,
    executor: d.executor,
    market: d.market,
    portfolio,
    inFlight,
    admission,
    stats,
    log,
    decisions,
    execution: d.execution,
    onIntent: d.onIntent,
    watchPriceFor: d.watchPriceFor,
    onReport,
  });

  return {
    place: (req) => placement.place(req),
    sellFraction: (s, m, f, reason, slip) => placement.sellFraction(s, m, f, reason, slip),
    placeExit(o) {
      const r = placement.sellFraction(o.strategyId, o.mint, o.fractionBps, o.reason, undefined, o);
      const key = portfolio.position(o.strategyId, o.mint)?.key;
      if (!r.ok && key !== undefined) exits.settled(key, o.level, false);
    },
    onReport,
    pendingCount: () => inFlight.size(),
    buyingNow: (mint) => inFlight.buyLamports(mint) > 0n,
    pendingOf: (strategyId, mint) => inFlight.of(strategyId, mint),
    close: () => admission.close(),
    riskState: admission.riskState,
  };
}
