/**
 * The executor's reports coming back: a fill updates the portfolio, the decision log, the stats,
 * the exit rules and the strategy (`onFill`, position opened or closed); a rejection, on-chain
 * failure or expiry is written as `unfilled`, re-arms an exit level and reaches `onIntentFailed`.
 * A report for an intent this engine does not hold is reconciled, never dropped: a fill is applied
 * once (by its signature) when the executor names its strategy.
 */
import type { Logger, UnixMs } from '../../core/index.js';
import type { DecisionSink } from '../logs/decision-log.js';
import type { EngineStats } from '../logs/engine-stats.js';
import type { ExecutionReport, Fill } from './execution-port.js';
import type { ExitManager, ExitOrder } from '../exits/exit-manager.js';
import { holdingKey, type IntentsInFlight } from './intents-in-flight.js';
import type { OrderAdmission } from './order-admission.js';
import type { Portfolio, Position } from '../market/portfolio.js';
import type { RepeatLimiter } from '../logs/repeat-limiter.js';
import type { IntentFailed } from '../strategy/strategy-api.js';

export interface OrderReportsDeps {
  readonly portfolio: Portfolio;
  readonly exits: ExitManager;
  readonly inFlight: IntentsInFlight;
  /** Told of each buy fill (the risk gate's cooldown). */
  readonly admission: OrderAdmission;
  readonly stats: EngineStats;
  readonly log: Logger;
  readonly decisions: DecisionSink;
  /** Summarises repeated log lines (shared with the order flow's other log lines). */
  readonly repeats: RepeatLimiter;
  readonly onPositionOpened: (p: Position) => void;
  readonly onPositionClosed: (p: Position) => void;
  readonly onFill: (strategyId: string, fill: Fill) => void;
  /** An intent was rejected, failed or expired. */
  readonly onIntentFailed: (strategyId: string, event: IntentFailed) => void;
  /** Signatures of fills restored into the portfolio at start (a report of one of them is not applied again). */
  readonly restoredSignatures: Iterable<string> | undefined;
}

/** Fill signatures remembered against double counting (oldest forgotten first). */
const MAX_REMEMBERED_SIGNATURES = 65_536;

/** Applies each report to the engine's state; returns the report sink. */
export function createOrderReports(d: OrderReportsDeps): (r: ExecutionReport) => void {
  const { portfolio, exits, inFlight } = d;
  /** Realised PnL of a position when it was (re)opened, to score the round trip. */
  const realisedAtOpen = new Map<string, bigint>();
  /** Signatures of fills in the portfolio (restored and applied), so a repeated report is not counted twice. */
  const applied = new Set<string>(d.restoredSignatures ?? []);
  const remember = (signature: string | undefined): void => {
    if (signature === undefined) return;
    applied.add(signature);
    if (applied.size > MAX_REMEMBERED_SIGNATURES) applied.delete(applied.values().next().value as string);
  };

  /** Applies a landed fill of `strategyId`: portfolio, decision log, stats, exits, callbacks. */
  const applyFill = (intentId: string, strategyId: string, fill: Fill, at: UnixMs, exit: ExitOrder | undefined): void => {
    remember(fill.signature);
    const before = portfolio.position(strategyId, fill.mint);
    if ((before?.tokenRaw ?? 0n) === 0n) realisedAtOpen.set(holdingKey(strategyId, fill.mint), before?.realisedLamports ?? 0n);
    // the position's clock is the run's: when the engine got the report (its `at`, on the run clock), not the chain's block time
    const after = portfolio.applyFill(strategyId, fill, at);
    if (fill.side === 'buy') d.admission.bought(fill.mint, fill.filledAt);
    d.decisions({
      kind: 'fill',
      at,
      intentId,
      strategyId,
      side: fill.side,
      mint: fill.mint,
      solAmount: fill.solAmount.toString(),
      tokenAmount: fill.tokenAmount.toString(),
      feeLamports: fill.feeLamports.toString(),
      price: fill.price,
      ...(fill.rentLamports !== undefined && fill.rentLamports > 0n ? { rentLamports: fill.rentLamports.toString() } : {}),
      ...(fill.rentReturnedLamports !== undefined && fill.rentReturnedLamports > 0n ? { rentReturnedLamports: fill.rentReturnedLamports.toString() } : {}),
    });
    d.stats.filled(strategyId, fill, after, realisedAtOpen.get(after.key));
    if (after.tokenRaw === 0n) realisedAtOpen.delete(after.key);
    if ((before?.tokenRaw ?? 0n) === 0n && after.tokenRaw > 0n) d.onPositionOpened(after);
    if ((before?.tokenRaw ?? 0n) > 0n && after.tokenRaw === 0n) d.onPositionClosed(after);
    exits.positionChanged(after);
    if (exit) exits.settled(after.key, exit.level, true);
    d.onFill(strategyId, fill);
  };

  /**
   * A report for an intent this engine does not hold (another run's, one it forgot, a stream read
   * twice): logged and counted, never dropped; a fill the executor attributes to a strategy is
   * reconciled into the portfolio unless its signature is already there.
   */
  const reconcileUnknown = (r: ExecutionReport): void => {
    if (r.type === 'accepted') return;
    d.stats.unknownReport();
    if (r.type !== 'filled') {
      // rejected and expired change nothing; a failed one's fee shows in the wallet's cash
      d.log.warn({ intentId: r.intentId, type: r.type }, `${r.type} report for an intent this engine does not hold`);
      return;
    }
    const { fill, strategyId } = r;
    if (fill.signature !== undefined && applied.has(fill.signature)) {
      d.log.info({ intentId: r.intentId, signature: fill.signature }, 'fill report for an intent this engine does not hold: already in the portfolio');
      return;
    }
    if (strategyId === undefined) {
      d.log.error(
        { intentId: r.intentId, signature: fill.signature },
        'fill report for an intent this engine does not hold, without a strategy: not reconciled',
      );
      return;
    }
    d.log.warn(
      { intentId: r.intentId, strategyId, signature: fill.signature },
      'fill report for an intent this engine does not hold: reconciled into the portfolio',
    );
    applyFill(r.intentId, strategyId, fill, r.at, undefined);
  };

  return (r) => {
    const p = inFlight.get(r.intentId);
    if (!p) {
      reconcileUnknown(r);
      return;
    }
    if (r.type === 'accepted') return;
    inFlight.remove(p);
    p.releasePrice?.();
    const { intent } = p;
    const key = portfolio.position(intent.strategyId, intent.mint)?.key;
    if (r.type === 'filled') {
      applyFill(intent.id, intent.strategyId, r.fill, r.at, p.exit);
      return;
    }
    if (r.type === 'failed') portfolio.applyFailedFee(intent.strategyId, intent.mint, r.feeLamports);
    if (r.type === 'rejected') d.stats.rejected(r.code);
    const code = r.type === 'expired' ? 'EXPIRED' : r.code;
    const reason = r.type === 'expired' ? 'blockhash expired; nothing landed' : r.reason;
    d.decisions({
      kind: 'unfilled',
      at: r.at,
      intentId: intent.id,
      strategyId: intent.strategyId,
      outcome: r.type,
      code,
      reason,
      feeLamports: r.type === 'failed' ? r.feeLamports.toString() : '0',
    });
    const seen = d.repeats.admit(`${r.type}\u0000${intent.strategyId}\u0000${code}`);
    if (seen.write) {
      const more = seen.held > 0 ? ` (and ${seen.held} more ${code} of ${intent.strategyId} held back from the log since the last such line)` : '';
      d.log.info({ intentId: intent.id, code, ...(seen.held > 0 ? { repeated: seen.held } : {}) }, `intent ${r.type}: ${reason}${more}`);
    }
    if (p.exit && key !== undefined) exits.settled(key, p.exit.level, false);
    d.onIntentFailed(intent.strategyId, { intentId: intent.id, side: intent.side, mint: intent.mint, outcome: r.type, code, reason, at: r.at });
  };
}
