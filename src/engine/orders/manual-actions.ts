/**
 * Manual actions of an operator on a running engine: close a position (all or a share), force an
 * entry with an amount, cancel an intent still waiting in the executor. Each is journaled first as
 * a `manual` decision (who, why, what), then goes through the same order flow as a strategy's
 * order: a forced entry meets the admission check and the risk gate, and a denial is a value
 * (logged, counted, returned), never a throw.
 */
import { isLamports, type Clock } from '../../core/index.js';
import type { DecisionSink, ManualDecision } from '../logs/decision-log.js';
import type { Executor } from './execution-port.js';
import type { OrderFlow } from './order-flow.js';
import type { Portfolio } from '../market/portfolio.js';
import type { OrderResult } from '../strategy/strategy-api.js';

export type ManualAction =
  | { readonly action: 'close'; readonly mint: string; readonly strategyId?: string | undefined; readonly fractionBps: number }
  | { readonly action: 'enter'; readonly mint: string; readonly strategyId?: string | undefined; readonly spendLamports: bigint }
  | { readonly action: 'cancel'; readonly intentId: string };

/** Who asked (an API token holder, a chat id, the CLI user) and why, as the journal keeps them. */
export interface ManualMeta {
  readonly by: string;
  readonly why: string;
}

export interface ManualDeps {
  readonly clock: Clock;
  readonly orders: OrderFlow;
  readonly portfolio: Portfolio;
  readonly strategyIds: readonly string[];
  readonly executor: Executor;
  readonly decisions: DecisionSink;
}

const refused = (reason: string): OrderResult => ({ ok: false, code: 'ENGINE_MANUAL_REFUSED', reason });

/** The journal entry of `a` (also what a recording keeps, so a backtest replays it). */
export function manualDecision(a: ManualAction, meta: ManualMeta, at: number): ManualDecision {
  return {
    kind: 'manual',
    at,
    action: a.action,
    by: meta.by,
    why: meta.why,
    target: a.action === 'cancel' ? { intentId: a.intentId } : { mint: a.mint, ...(a.strategyId !== undefined ? { strategyId: a.strategyId } : {}) },
    amount: a.action === 'close' ? String(a.fractionBps) : a.action === 'enter' ? a.spendLamports.toString() : null,
  };
}

/** The action and meta a journal entry of `manualDecision` was made from (a backtest replays it). */
export function manualActionOf(m: ManualDecision): { readonly action: ManualAction; readonly meta: ManualMeta } {
  const meta = { by: m.by, why: m.why };
  const strategyId = m.target.strategyId !== undefined ? { strategyId: m.target.strategyId } : {};
  if (m.action === 'cancel') return { action: { action: 'cancel', intentId: m.target.intentId ?? '' }, meta };
  const mint = m.target.mint ?? '';
  if (m.action === 'close') return { action: { action: 'close', mint, ...strategyId, fractionBps: Number(m.amount) }, meta };
  return { action: { action: 'enter', mint, ...strategyId, spendLamports: /^\d+$/.test(m.amount ?? '') ? BigInt(m.amount as string) : 0n }, meta };
}

/** Applies manual actions on the engine's order flow; returns the outcome as a value. */
export function createManualActions(d: ManualDeps): (a: ManualAction, meta: ManualMeta) => OrderResult {
  const strategyFor = (mint: string, wanted: string | undefined, holding: boolean): string | OrderResult => {
    if (wanted !== undefined)
      return d.strategyIds.includes(wanted) ? wanted : refused(`no strategy "${wanted}" in this deployment (${d.strategyIds.join(', ')})`);
    const candidates = holding ? d.portfolio.openOn(mint).map((p) => p.strategyId) : d.strategyIds;
    if (candidates.length === 1) return candidates[0] as string;
    if (candidates.length === 0) return refused(holding ? `no open position on ${mint}` : 'the deployment has no strategy');
    return refused(`several strategies ${holding ? 'hold' : 'run'} here (${candidates.join(', ')}): name one with strategyId`);
  };
  /** A placed manual intent gets the executor's hold (paper.manualHold), so that an operator can still cancel it. */
  const held = (r: OrderResult): OrderResult => {
    if (r.ok) d.executor.holdManual?.(r.intentId);
    return r;
  };
  return (a, meta) => {
    d.decisions(manualDecision(a, meta, d.clock.now()));
    const why = `manual ${a.action} by ${meta.by}: ${meta.why}`;
    if (a.action === 'cancel') {
      if (!d.executor.cancel) return refused('this executor cannot cancel: the intent was handed to the venue');
      return d.executor.cancel(a.intentId, why)
        ? { ok: true, intentId: a.intentId }
        : refused(`intent ${a.intentId} is not waiting in the executor (unknown, already resolved, or already sent)`);
    }
    const strategyId = strategyFor(a.mint, a.strategyId, a.action === 'close');
    if (typeof strategyId !== 'string') return strategyId;
    if (a.action === 'close') {
      if (!Number.isInteger(a.fractionBps) || a.fractionBps < 1 || a.fractionBps > 10_000) return refused('fractionBps must be an integer from 1 to 10000');
      if (!d.portfolio.position(strategyId, a.mint)?.tokenRaw) return refused(`${strategyId} holds no ${a.mint}`);
      return held(d.orders.sellFraction(strategyId, a.mint, a.fractionBps, why));
    }
    if (!isLamports(a.spendLamports) || a.spendLamports <= 0n) return refused('spendLamports must be > 0');
    return held(d.orders.place({ strategyId, side: 'buy', mint: a.mint, spendLamports: a.spendLamports, reason: why }));
  };
}
