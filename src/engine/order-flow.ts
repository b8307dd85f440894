/**
 * From a strategy's decision to the executor and back: risk check, deterministic intent, decision
 * log, pending bookkeeping (buys and sells in flight count against limits), and the execution
 * reports that update the portfolio.
 */
import {
  addLamports,
  addRaw,
  bps,
  describeError,
  isChainpilotError,
  isLamports,
  isRawAmount,
  lamports,
  newId,
  subLamports,
  subRaw,
  ZERO_LAMPORTS,
  ZERO_RAW,
  type Clock,
  type ErrorCode,
  type Lamports,
  type Logger,
  type Random,
  type RawAmount,
  type UnixMs,
} from '../core/index.js';
import type { DecisionSink } from './decision-log.js';
import type { EngineStats } from './engine-stats.js';
import { amountInOf, type ExecutionReport, type Executor, type Fill, type OrderIntent } from './execution-port.js';
import type { ExitManager, ExitOrder } from './exit-manager.js';
import type { MarketView } from './market-view.js';
import type { Portfolio, Position } from './portfolio.js';
import type { RiskGate, RiskRequest, RiskState } from './risk-gate.js';
import { createRepeatLimiter } from './repeat-limiter.js';
import type { IntentFailed, OrderResult, PendingIntent } from './strategy-api.js';

interface PlaceCommon {
  readonly strategyId: string;
  readonly mint: string;
  readonly reason: string;
  readonly slippageBps?: number | undefined;
}

/**
 * An order as a strategy wrote it. The amount is unchecked (strategy code, maybe plain JS):
 * `place` checks it (a bigint > 0) and brands it, or denies with RISK_INVALID_AMOUNT.
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

/** The risk request for `req` with its amount branded, when the amount is a bigint > 0; undefined otherwise. */
function checkAmount(req: PlaceRequest, at: UnixMs): RiskRequest | undefined {
  const { strategyId, mint } = req;
  if (req.side === 'buy')
    return isLamports(req.spendLamports) && req.spendLamports > 0n ? { side: 'buy', strategyId, mint, spendLamports: req.spendLamports, at } : undefined;
  return isRawAmount(req.sellRaw) && req.sellRaw > 0n ? { side: 'sell', strategyId, mint, sellRaw: req.sellRaw, at } : undefined;
}

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
}

export interface OrderFlowDeps {
  readonly clock: Clock;
  readonly random: Random;
  /** Prefix of intent ids (the engine's `intentIdPrefix`). */
  readonly idPrefix: string;
  readonly executor: Executor;
  readonly gate: RiskGate;
  readonly market: MarketView;
  readonly portfolio: Portfolio;
  readonly exits: ExitManager;
  readonly stats: EngineStats;
  readonly log: Logger;
  readonly decisions: DecisionSink;
  readonly execution: { readonly slippageBps: number; readonly priorityFeeLamports: Lamports; readonly defaultDecimals: number };
  readonly onIntent: ((intent: OrderIntent) => void) | undefined;
  readonly onPositionOpened: (p: Position) => void;
  readonly onPositionClosed: (p: Position) => void;
  readonly onFill: (strategyId: string, fill: Fill) => void;
  /** An intent was rejected, failed or expired. */
  readonly onIntentFailed: (strategyId: string, event: IntentFailed) => void;
  /** A buy was placed on a token without an observed price: watch its price room until `release` is called. */
  readonly watchPriceFor: (strategyId: string, mint: string) => () => void;
  /** The runtime's say before the risk gate (paused entries, a halted deployment); undefined admits. */
  readonly admission: Admission | undefined;
  /** Signatures of fills restored into the portfolio at start (a report of one of them is not applied again). */
  readonly restoredSignatures?: Iterable<string>;
}

/** Slack past twice the cooldown before a token's last buy time is forgotten (block time against the run clock). */
const LAST_BUY_MARGIN_MS = 60_000;

/** Fill signatures remembered against double counting (oldest forgotten first). */
const MAX_REMEMBERED_SIGNATURES = 65_536;

/**
 * The runtime's admission check, asked before the risk gate for every order: a denial (coded) is
 * logged, counted and written to the decision log like a risk denial.
 */
export type Admission = (side: 'buy' | 'sell') => { readonly code: ErrorCode; readonly reason: string } | undefined;

interface Pending {
  readonly intent: OrderIntent;
  readonly exit: ExitOrder | undefined;
  readonly opening: boolean;
  /** Releases the price room joined because the token had no observed price (set right after the submit). */
  releasePrice: (() => void) | undefined;
}

/** Why an amount that is not a bigint > 0 is refused, with the fix. */
function invalidAmountReason(req: PlaceRequest): string {
  const amount: unknown = req.side === 'buy' ? req.spendLamports : req.sellRaw;
  if (typeof amount === 'bigint') return 'amount must be > 0';
  const field = req.side === 'buy' ? 'lamports' : 'amountRaw';
  return `${field} must be a bigint > 0 (such as 100_000_000n), got a ${typeof amount}`;
}

export function createOrderFlow(d: OrderFlowDeps): OrderFlow {
  const pending = new Map<string, Pending>();
  /**
   * Time of the last buy fill per token, for the gate's cooldown only (kept only with one), the
   * least recently bought first; a token whose last buy is past every cooldown window is forgotten.
   */
  const lastBuy = new Map<string, UnixMs>();
  const cooldownMs = d.gate.cooldownMs;
  const rememberBuy = (mint: string, at: UnixMs): void => {
    if (cooldownMs === undefined) return;
    lastBuy.delete(mint);
    lastBuy.set(mint, at);
    // fill times are block times in live, which may run ahead of or behind the run clock: a minute's margin
    const before = d.clock.now() - 2 * cooldownMs - LAST_BUY_MARGIN_MS;
    for (const [m, t] of lastBuy) {
      if (t >= before) break;
      lastBuy.delete(m);
    }
  };
  /** Realised PnL of a position when it was (re)opened, to score the round trip. */
  const realisedAtOpen = new Map<string, bigint>();
  let closed = false;

  // Running totals of work in flight (kept exact on every add and remove; O(1) for the risk gate).
  let buyTotal = ZERO_LAMPORTS;
  const buyByMint = new Map<string, Lamports>();
  const sellByKey = new Map<string, RawAmount>();
  const opening = new Map<string, number>();
  const keyOf = (strategyId: string, mint: string): string => `${strategyId}\u0000${mint}`;
  const put = <A extends bigint>(m: Map<string, A>, k: string, v: A): void => {
    if (v === 0n) m.delete(k);
    else m.set(k, v);
  };
  const track = (p: Pending, adding: boolean): void => {
    const { intent } = p;
    if (intent.side === 'buy') {
      const inMint = buyByMint.get(intent.mint) ?? ZERO_LAMPORTS;
      buyTotal = adding ? addLamports(buyTotal, intent.spendLamports) : subLamports(buyTotal, intent.spendLamports);
      put(buyByMint, intent.mint, adding ? addLamports(inMint, intent.spendLamports) : subLamports(inMint, intent.spendLamports));
      if (p.opening) {
        const k = keyOf(intent.strategyId, intent.mint);
        const n = (opening.get(k) ?? 0) + (adding ? 1 : -1);
        if (n === 0) opening.delete(k);
        else opening.set(k, n);
      }
    } else {
      const k = keyOf(intent.strategyId, intent.mint);
      const selling = sellByKey.get(k) ?? ZERO_RAW;
      put(sellByKey, k, adding ? addRaw(selling, intent.sellRaw) : subRaw(selling, intent.sellRaw));
    }
  };

  const riskState: RiskState = {
    market: d.market,
    totals: () => d.portfolio.totals(),
    openOn: (mint) => d.portfolio.openOn(mint),
    position: (s, m) => d.portfolio.position(s, m),
    pendingBuyLamports: (mint) => (mint === undefined ? buyTotal : (buyByMint.get(mint) ?? ZERO_LAMPORTS)),
    pendingSellRaw: (s, m) => sellByKey.get(keyOf(s, m)) ?? ZERO_RAW,
    openingPositions: () => opening.size,
    lastBuyAt: (m) => lastBuy.get(m),
  };

  // repeated identical denials and refusals are summarised in the log (counted in full in the stats and the decision log)
  const repeats = createRepeatLimiter(d.clock);
  const amountText = (req: PlaceRequest): string => String(req.side === 'buy' ? req.spendLamports : req.sellRaw);
  /** A denied order: decision log, stats, the log line (repeats summarised). Not a closure per order: place() runs for every decision. */
  const denyOrder = (req: PlaceRequest, at: UnixMs, code: string, reason: string): OrderResult => {
    d.decisions({ kind: 'denied', at, strategyId: req.strategyId, side: req.side, mint: req.mint, amountIn: amountText(req), code, reason });
    d.stats.denied({ at, strategyId: req.strategyId, mint: req.mint, code, reason });
    const r = repeats.admit(`denied\u0000${req.strategyId}\u0000${req.side}\u0000${code}`);
    if (r.write) {
      const more = r.held > 0 ? ` (and ${r.held} more ${code} denial(s) of ${req.strategyId} held back from the log since the last such line)` : '';
      d.log.info(
        { strategyId: req.strategyId, mint: req.mint, side: req.side, code, ...(r.held > 0 ? { repeated: r.held } : {}) },
        `order denied: ${reason}${more}`,
      );
    }
    return { ok: false, code, reason };
  };
  const place = (req: PlaceRequest, exit?: ExitOrder): OrderResult => {
    const at = d.clock.now();
    if (closed) return denyOrder(req, at, 'ENGINE_STOPPED', 'the engine is stopping: no new orders');
    const refused = d.admission?.(req.side);
    if (refused) return denyOrder(req, at, refused.code, refused.reason);
    const inFlight = req.side === 'buy' && req.allowConcurrent !== true ? pendingBuyOf(req.strategyId, req.mint) : undefined;
    if (inFlight !== undefined) {
      return denyOrder(
        req,
        at,
        'ENGINE_BUY_IN_FLIGHT',
        `buy ${inFlight} of ${req.mint} by this strategy is unresolved; wait for onFill or onIntentFailed, or pass allowConcurrent: true`,
      );
    }
    const checked = checkAmount(req, at);
    if (checked === undefined) return denyOrder(req, at, 'RISK_INVALID_AMOUNT', invalidAmountReason(req));
    const decision = d.gate.check(checked, riskState);
    if (!decision.allowed) return denyOrder(req, at, decision.code, decision.reason);
    const obs = d.market.get(req.mint);
    const held = d.portfolio.position(req.strategyId, req.mint);
    const id = newId(at, d.random, d.idPrefix);
    const decimals = held?.decimals ?? obs?.decimals ?? d.execution.defaultDecimals;
    const slippageBps = bps(req.slippageBps ?? d.execution.slippageBps);
    const priorityFeeLamports = lamports(d.execution.priorityFeeLamports);
    const { strategyId, mint, reason } = req;
    const referencePrice = obs?.price;
    // one literal per side, fields in one order (as the journal codec writes them)
    const intent: OrderIntent = Object.freeze(
      checked.side === 'buy'
        ? {
            id,
            strategyId,
            side: 'buy',
            mint,
            decimals,
            spendLamports: checked.spendLamports,
            slippageBps,
            priorityFeeLamports,
            referencePrice,
            createdAt: at,
            reason,
          }
        : { id, strategyId, side: 'sell', mint, decimals, sellRaw: checked.sellRaw, slippageBps, priorityFeeLamports, referencePrice, createdAt: at, reason },
    );
    const entry: Pending = { intent, exit, opening: req.side === 'buy' && (held?.tokenRaw ?? 0n) === 0n, releasePrice: undefined };
    pending.set(intent.id, entry);
    track(entry, true);
    d.stats.intentPlaced();
    d.decisions({
      kind: 'intent',
      at,
      strategyId,
      side: req.side,
      mint,
      amountIn: amountText(req),
      intentId: intent.id,
      referencePrice: intent.referencePrice ?? null,
      reason,
    });
    d.onIntent?.(intent);
    d.executor.submit(intent).then(undefined, (e: unknown) => {
      if (isChainpilotError(e) && e.retry === 'unknown_outcome') {
        // The executor may hold it (a queue job stored whose reply was lost): it stays in flight,
        // its spend counted and its position pending, until a report or reconciliation settles it.
        d.stats.submitUnknown();
        d.log.warn(
          { intentId: intent.id, code: e.code, err: describeError(e) },
          'submit outcome unknown: the intent stays in flight until a report settles it',
        );
        return;
      }
      flow.onReport({
        type: 'rejected',
        intentId: intent.id,
        at: d.clock.now(),
        code: isChainpilotError(e) ? e.code : 'ENGINE_SUBMIT_FAILED',
        reason: describeError(e),
      });
    });
    // No observed price yet: watch the token's price room so the paper fill (and the exit rules) get
    // one. Joined after the submit, so the join is not on the decision path; skipped when the
    // executor already resolved the intent during submit (nothing left to price).
    if (req.side === 'buy' && obs?.price === undefined && pending.get(intent.id) === entry) entry.releasePrice = d.watchPriceFor(req.strategyId, req.mint);
    return { ok: true, intentId: intent.id };
  };

  /** The id of an unresolved buy of `mint` by `strategyId`, if any. */
  const pendingBuyOf = (strategyId: string, mint: string): string | undefined => {
    if ((buyByMint.get(mint) ?? 0n) === 0n) return undefined;
    for (const p of pending.values()) if (p.intent.side === 'buy' && p.intent.strategyId === strategyId && p.intent.mint === mint) return p.intent.id;
    return undefined;
  };

  const sellFraction = (strategyId: string, mint: string, fractionBps: number, reason: string, slippageBps?: number, exit?: ExitOrder): OrderResult => {
    const held = d.portfolio.position(strategyId, mint)?.tokenRaw ?? 0n;
    const free = held - riskState.pendingSellRaw(strategyId, mint);
    const amount = fractionBps >= 10_000 ? free : (free * BigInt(Math.max(0, Math.floor(fractionBps)))) / 10_000n;
    return place({ strategyId, side: 'sell', mint, sellRaw: amount, reason, slippageBps }, exit);
  };

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
    const before = d.portfolio.position(strategyId, fill.mint);
    if ((before?.tokenRaw ?? 0n) === 0n) realisedAtOpen.set(keyOf(strategyId, fill.mint), before?.realisedLamports ?? 0n);
    // the position's clock is the run's: when the engine got the report (its `at`, on the run clock), not the chain's block time
    const after = d.portfolio.applyFill(strategyId, fill, at);
    if (fill.side === 'buy') rememberBuy(fill.mint, fill.filledAt);
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
    });
    d.stats.filled(strategyId, fill, after, realisedAtOpen.get(after.key));
    if (after.tokenRaw === 0n) realisedAtOpen.delete(after.key);
    if ((before?.tokenRaw ?? 0n) === 0n && after.tokenRaw > 0n) d.onPositionOpened(after);
    if ((before?.tokenRaw ?? 0n) > 0n && after.tokenRaw === 0n) d.onPositionClosed(after);
    d.exits.positionChanged(after);
    if (exit) d.exits.settled(after.key, exit.level, true);
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

  const flow: OrderFlow = {
    place: (req) => place(req),
    sellFraction: (s, m, f, reason, slip) => sellFraction(s, m, f, reason, slip),
    placeExit(o) {
      const r = sellFraction(o.strategyId, o.mint, o.fractionBps, o.reason, undefined, o);
      const key = d.portfolio.position(o.strategyId, o.mint)?.key;
      if (!r.ok && key !== undefined) d.exits.settled(key, o.level, false);
    },
    pendingCount: () => pending.size,
    buyingNow: (mint) => (buyByMint.get(mint) ?? ZERO_LAMPORTS) > 0n,
    pendingOf(strategyId, mint) {
      const out: PendingIntent[] = [];
      for (const { intent: i } of pending.values()) {
        if (i.strategyId !== strategyId || (mint !== undefined && i.mint !== mint)) continue;
        const common = { intentId: i.id, mint: i.mint, amountIn: amountInOf(i), createdAt: i.createdAt };
        out.push(i.side === 'buy' ? { ...common, side: 'buy', spendLamports: i.spendLamports } : { ...common, side: 'sell', sellRaw: i.sellRaw });
      }
      return out;
    },
    close: () => void (closed = true),
    onReport(r) {
      const p = pending.get(r.intentId);
      if (!p) {
        reconcileUnknown(r);
        return;
      }
      if (r.type === 'accepted') return;
      pending.delete(r.intentId);
      track(p, false);
      p.releasePrice?.();
      const { intent } = p;
      const key = d.portfolio.position(intent.strategyId, intent.mint)?.key;
      if (r.type === 'filled') {
        applyFill(intent.id, intent.strategyId, r.fill, r.at, p.exit);
        return;
      }
      if (r.type === 'failed') d.portfolio.applyFailedFee(intent.strategyId, intent.mint, r.feeLamports);
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
      const seen = repeats.admit(`${r.type}\u0000${intent.strategyId}\u0000${code}`);
      if (seen.write) {
        const more = seen.held > 0 ? ` (and ${seen.held} more ${code} of ${intent.strategyId} held back from the log since the last such line)` : '';
        d.log.info({ intentId: intent.id, code, ...(seen.held > 0 ? { repeated: seen.held } : {}) }, `intent ${r.type}: ${reason}${more}`);
      }
      if (p.exit && key !== undefined) d.exits.settled(key, p.exit.level, false);
      d.onIntentFailed(intent.strategyId, { intentId: intent.id, side: intent.side, mint: intent.mint, outcome: r.type, code, reason, at: r.at });
    },
  };
  return flow;
}
