/**
 * From a strategy's decision to the executor and back: risk check, deterministic intent, decision
 * log, pending bookkeeping (buys and sells in flight count against limits), and the execution
 * reports that update the portfolio.
 */
import { bps, describeError, isChainpilotError, lamports, newId, type Clock, type ErrorCode, type Logger, type Random, type UnixMs } from '../core/index.js';
import type { DecisionSink } from './decision-log.js';
import type { EngineStats } from './engine-stats.js';
import type { ExecutionReport, Executor, Fill, OrderIntent } from './execution-port.js';
import type { ExitManager, ExitOrder } from './exit-manager.js';
import type { MarketView } from './market-view.js';
import type { Portfolio, Position } from './portfolio.js';
import type { RiskGate, RiskState } from './risk-gate.js';
import type { OrderResult } from './strategy-api.js';

const DAY_MS = 86_400_000;

export interface PlaceRequest {
  readonly strategyId: string;
  readonly side: 'buy' | 'sell';
  readonly mint: string;
  readonly amountIn: bigint;
  readonly reason: string;
  readonly slippageBps?: number | undefined;
}

export interface OrderFlow {
  place(req: PlaceRequest): OrderResult;
  /** Sells `fractionBps` of the free (not already being sold) amount of a position. */
  sellFraction(strategyId: string, mint: string, fractionBps: number, reason: string, slippageBps?: number): OrderResult;
  placeExit(o: ExitOrder): void;
  onReport(r: ExecutionReport): void;
  /** Intents handed over and not yet resolved. */
  pendingCount(): number;
  /** No new intents after this; reports still apply. */
  close(): void;
}

export interface OrderFlowDeps {
  readonly clock: Clock;
  readonly random: Random;
  readonly executor: Executor;
  readonly gate: RiskGate;
  readonly market: MarketView;
  readonly portfolio: Portfolio;
  readonly exits: ExitManager;
  readonly stats: EngineStats;
  readonly log: Logger;
  readonly decisions: DecisionSink;
  readonly execution: { readonly slippageBps: number; readonly priorityFeeLamports: bigint; readonly defaultDecimals: number };
  readonly onIntent: ((intent: OrderIntent) => void) | undefined;
  readonly onPositionOpened: (p: Position) => void;
  readonly onPositionClosed: (p: Position) => void;
  readonly onFill: (strategyId: string, fill: Fill) => void;
  /** The runtime's say before the risk gate (paused entries, a halted deployment); undefined admits. */
  readonly admission: Admission | undefined;
}

/**
 * The runtime's admission check, asked before the risk gate for every order: a denial (coded) is
 * logged, counted and written to the decision log like a risk denial.
 */
export type Admission = (side: 'buy' | 'sell') => { readonly code: ErrorCode; readonly reason: string } | undefined;

interface Pending {
  readonly intent: OrderIntent;
  readonly exit: ExitOrder | undefined;
  readonly opening: boolean;
}

export function createOrderFlow(d: OrderFlowDeps): OrderFlow {
  const pending = new Map<string, Pending>();
  const lastBuy = new Map<string, UnixMs>();
  /** Realised PnL of a position when it was (re)opened, to score the round trip. */
  const realisedAtOpen = new Map<string, bigint>();
  let closed = false;
  let day = -1;
  let dayStartEquity = 0n;

  // Running totals of work in flight (kept exact on every add and remove; O(1) for the risk gate).
  let buyTotal = 0n;
  const buyByMint = new Map<string, bigint>();
  const sellByKey = new Map<string, bigint>();
  const opening = new Map<string, number>();
  const keyOf = (strategyId: string, mint: string): string => `${strategyId}\u0000${mint}`;
  const bump = <K>(m: Map<K, bigint>, k: K, by: bigint): void => {
    const v = (m.get(k) ?? 0n) + by;
    if (v === 0n) m.delete(k);
    else m.set(k, v);
  };
  const track = (p: Pending, sign: 1n | -1n): void => {
    const { intent } = p;
    if (intent.side === 'buy') {
      buyTotal += sign * intent.amountIn;
      bump(buyByMint, intent.mint, sign * intent.amountIn);
      if (p.opening) {
        const k = keyOf(intent.strategyId, intent.mint);
        const n = (opening.get(k) ?? 0) + (sign === 1n ? 1 : -1);
        if (n === 0) opening.delete(k);
        else opening.set(k, n);
      }
    } else bump(sellByKey, keyOf(intent.strategyId, intent.mint), sign * intent.amountIn);
  };

  const riskState: RiskState = {
    market: d.market,
    totals: () => d.portfolio.totals(),
    openPositions: () => d.portfolio.open(),
    position: (s, m) => d.portfolio.position(s, m),
    pendingBuyLamports: (mint) => (mint === undefined ? buyTotal : buyByMint.get(mint) ?? 0n),
    pendingSellRaw: (s, m) => sellByKey.get(keyOf(s, m)) ?? 0n,
    openingPositions: () => opening.size,
    lastBuyAt: (m) => lastBuy.get(m),
    dayStartEquity(at) {
      const today = Math.floor(at / DAY_MS);
      if (today !== day) {
        day = today;
        dayStartEquity = d.portfolio.totals().equityLamports;
      }
      return dayStartEquity;
    },
  };

  const place = (req: PlaceRequest, exit?: ExitOrder): OrderResult => {
    const at = d.clock.now();
    const base = { at, strategyId: req.strategyId, side: req.side, mint: req.mint, amountIn: req.amountIn.toString() };
    const refused = closed ? undefined : d.admission?.(req.side);
    const decision = closed
      ? { allowed: false as const, code: 'ENGINE_STOPPED', reason: 'the engine is stopping: no new orders' }
      : refused
        ? { allowed: false as const, code: refused.code, reason: refused.reason }
        : d.gate.check({ side: req.side, strategyId: req.strategyId, mint: req.mint, amountIn: req.amountIn, at }, riskState);
    if (!decision.allowed) {
      d.decisions({ kind: 'denied', ...base, code: decision.code, reason: decision.reason });
      d.stats.denied({ at, strategyId: req.strategyId, mint: req.mint, code: decision.code, reason: decision.reason });
      d.log.info({ strategyId: req.strategyId, mint: req.mint, side: req.side, code: decision.code }, `order denied: ${decision.reason}`);
      return { ok: false, code: decision.code, reason: decision.reason };
    }
    const obs = d.market.get(req.mint);
    const held = d.portfolio.position(req.strategyId, req.mint);
    const intent: OrderIntent = Object.freeze({
      id: newId(at, d.random, 'int_'),
      strategyId: req.strategyId,
      side: req.side,
      mint: req.mint,
      decimals: held?.decimals ?? obs?.decimals ?? d.execution.defaultDecimals,
      amountIn: req.amountIn,
      slippageBps: bps(req.slippageBps ?? d.execution.slippageBps),
      priorityFeeLamports: lamports(d.execution.priorityFeeLamports),
      referencePrice: obs?.price,
      createdAt: at,
      reason: req.reason,
    });
    const entry: Pending = { intent, exit, opening: req.side === 'buy' && (held?.tokenRaw ?? 0n) === 0n };
    pending.set(intent.id, entry);
    track(entry, 1n);
    d.stats.intentPlaced();
    d.decisions({ kind: 'intent', ...base, intentId: intent.id, referencePrice: intent.referencePrice ?? null, reason: req.reason });
    d.onIntent?.(intent);
    d.executor.submit(intent).then(undefined, (e: unknown) => {
      flow.onReport({ type: 'rejected', intentId: intent.id, at: d.clock.now(), code: isChainpilotError(e) ? e.code : 'ENGINE_SUBMIT_FAILED', reason: describeError(e) });
    });
    return { ok: true, intentId: intent.id };
  };

  const sellFraction = (strategyId: string, mint: string, fractionBps: number, reason: string, slippageBps?: number, exit?: ExitOrder): OrderResult => {
    const held = d.portfolio.position(strategyId, mint)?.tokenRaw ?? 0n;
    const free = held - riskState.pendingSellRaw(strategyId, mint);
    const amount = fractionBps >= 10_000 ? free : (free * BigInt(Math.max(0, Math.floor(fractionBps)))) / 10_000n;
    return place({ strategyId, side: 'sell', mint, amountIn: amount, reason, slippageBps }, exit);
  };

  const flow: OrderFlow = {
    place: (req) => place(req),
    sellFraction: (s, m, f, reason, slip) => sellFraction(s, m, f, reason, slip),
    placeExit(o) {
      const r = sellFraction(o.strategyId, o.mint, o.fractionBps, o.reason, undefined, o);
      const key = d.portfolio.position(o.strategyId, o.mint)?.key;
      if (!r.ok && key !== undefined) d.exits.settled(key, o.level, false);
    },
    pendingCount: () => pending.size,
    close: () => void (closed = true),
    onReport(r) {
      const p = pending.get(r.intentId);
      if (!p) return;
      if (r.type === 'accepted') return;
      pending.delete(r.intentId);
      track(p, -1n);
      const { intent } = p;
      const key = d.portfolio.position(intent.strategyId, intent.mint)?.key;
      if (r.type === 'filled') {
        const fill = r.fill;
        const before = d.portfolio.position(intent.strategyId, intent.mint);
        if ((before?.tokenRaw ?? 0n) === 0n) realisedAtOpen.set(keyOf(intent.strategyId, intent.mint), before?.realisedLamports ?? 0n);
        const after = d.portfolio.applyFill(intent.strategyId, fill);
        if (fill.side === 'buy') lastBuy.set(fill.mint, fill.filledAt);
        d.decisions({ kind: 'fill', at: r.at, intentId: intent.id, strategyId: intent.strategyId, side: fill.side, mint: fill.mint,
          solAmount: fill.solAmount.toString(), tokenAmount: fill.tokenAmount.toString(), feeLamports: fill.feeLamports.toString(), price: fill.price });
        d.stats.filled(intent.strategyId, fill, after, realisedAtOpen.get(after.key));
        if ((before?.tokenRaw ?? 0n) === 0n && after.tokenRaw > 0n) d.onPositionOpened(after);
        if ((before?.tokenRaw ?? 0n) > 0n && after.tokenRaw === 0n) d.onPositionClosed(after);
        d.exits.positionChanged(after);
        if (p.exit) d.exits.settled(after.key, p.exit.level, true);
        d.onFill(intent.strategyId, fill);
        return;
      }
      if (r.type === 'failed') d.portfolio.applyFailedFee(intent.strategyId, intent.mint, r.feeLamports);
      const code = r.type === 'expired' ? 'EXPIRED' : r.code;
      const reason = r.type === 'expired' ? 'blockhash expired; nothing landed' : r.reason;
      d.decisions({ kind: 'unfilled', at: r.at, intentId: intent.id, strategyId: intent.strategyId, outcome: r.type, code, reason, feeLamports: r.type === 'failed' ? r.feeLamports.toString() : '0' });
      d.log.info({ intentId: intent.id, code }, `intent ${r.type}: ${reason}`);
      if (p.exit && key !== undefined) d.exits.settled(key, p.exit.level, false);
    },
  };
  return flow;
}
