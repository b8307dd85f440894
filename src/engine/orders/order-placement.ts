/**
 * An admitted order becomes an intent and leaves for the executor: a deterministic id on the run
 * clock and seeded random source, one frozen literal per side (fields in the journal codec's order),
 * held in flight, written to the decision log, then submitted. A submit that fails definitively comes
 * back as a `rejected` report; one whose outcome is unknown stays in flight until a report settles it.
 */
import { bps, describeError, isChainpilotError, lamports, newId, type Clock, type Lamports, type Logger, type Random } from '../../core/index.js';
import type { DecisionSink } from '../logs/decision-log.js';
import type { EngineStats } from '../logs/engine-stats.js';
import type { ExecutionReport, Executor, OrderIntent } from './execution-port.js';
import type { ExitOrder } from '../exits/exit-manager.js';
import type { InFlightOrder, IntentsInFlight } from './intents-in-flight.js';
import type { MarketView } from '../market/market-view.js';
import { amountText, type OrderAdmission, type PlaceRequest } from './order-admission.js';
import type { Portfolio } from '../market/portfolio.js';
import type { OrderResult } from '../strategy/strategy-api.js';

export interface OrderPlacement {
  /** Admits `req` and, when allowed, submits its intent; `exit` is the exit rule's order it carries out. */
  place(req: PlaceRequest, exit?: ExitOrder): OrderResult;
  /** Sells `fractionBps` of the free (not already being sold) amount of a position. */
  sellFraction(strategyId: string, mint: string, fractionBps: number, reason: string, slippageBps?: number, exit?: ExitOrder): OrderResult;
}

export interface OrderPlacementDeps {
  readonly clock: Clock;
  readonly random: Random;
  /** Prefix of intent ids (the engine's `intentIdPrefix`). */
  readonly idPrefix: string;
  readonly executor: Executor;
  readonly market: MarketView;
  readonly portfolio: Portfolio;
  readonly inFlight: IntentsInFlight;
  readonly admission: OrderAdmission;
  readonly stats: EngineStats;
  readonly log: Logger;
  readonly decisions: DecisionSink;
  readonly execution: { readonly slippageBps: number; readonly priorityFeeLamports: Lamports; readonly defaultDecimals: number };
  readonly onIntent: ((intent: OrderIntent) => void) | undefined;
  /** A buy was placed on a token without an observed price: watch its price room until `release` is called. */
  readonly watchPriceFor: (strategyId: string, mint: string) => () => void;
  /** Where a submit that failed definitively is reported (as a `rejected` report). */
  readonly onReport: (r: ExecutionReport) => void;
}

export function createOrderPlacement(d: OrderPlacementDeps): OrderPlacement {
  const { clock, inFlight, portfolio } = d;

  const place = (req: PlaceRequest, exit?: ExitOrder): OrderResult => {
    const at = clock.now();
    const checked = d.admission.admit(req, at);
    if ('ok' in checked) return checked;
    const obs = d.market.get(req.mint);
    const held = portfolio.position(req.strategyId, req.mint);
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
    const entry: InFlightOrder = { intent, exit, opening: req.side === 'buy' && (held?.tokenRaw ?? 0n) === 0n, releasePrice: undefined };
    inFlight.add(entry);
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
      d.onReport({
        type: 'rejected',
        intentId: intent.id,
        at: clock.now(),
        code: isChainpilotError(e) ? e.code : 'ENGINE_SUBMIT_FAILED',
        reason: describeError(e),
      });
    });
    // No observed price yet: watch the token's price room so the paper fill (and the exit rules) get
    // one. Joined after the submit, so the join is not on the decision path; skipped when the
    // executor already resolved the intent during submit (nothing left to price).
    if (req.side === 'buy' && obs?.price === undefined && inFlight.get(intent.id) === entry) entry.releasePrice = d.watchPriceFor(req.strategyId, req.mint);
    return { ok: true, intentId: intent.id };
  };

  return {
    place,
    sellFraction(strategyId, mint, fractionBps, reason, slippageBps, exit) {
      const held = portfolio.position(strategyId, mint)?.tokenRaw ?? 0n;
      const free = held - inFlight.sellRaw(strategyId, mint);
      const amount = fractionBps >= 10_000 ? free : (free * BigInt(Math.max(0, Math.floor(fractionBps)))) / 10_000n;
      return place({ strategyId, side: 'sell', mint, sellRaw: amount, reason, slippageBps }, exit);
    },
  };
}
