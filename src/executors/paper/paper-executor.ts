/**
 * The paper executor: fills intents from what the feed observed, after a latency on the injected
 * clock, through the fill model. No wall clock and no randomness, so it serves backtests too.
 */
import { ChainpilotError, lamports, rawAmount, type Clock, type TimerHandle } from '../../core/index.js';
import type { ExecutionSink, Executor, OrderIntent } from '../../engine/execution-port.js';
import type { MarketView } from '../../engine/market-view.js';
import { DEFAULT_FILL_MODEL, modelFill, type FillModelOptions } from './fill-model.js';

export interface PaperExecutorOptions {
  readonly clock: Clock;
  readonly market: MarketView;
  /** Decision-to-fill latency; the fill uses the market as observed at decision time plus this. */
  readonly latencyMs: number;
  readonly fillModel?: FillModelOptions;
  /**
   * A buy of a token with no observed price yet waits up to this long (engine clock) for the first
   * price tick before it is rejected with PAPER_NO_PRICE (the engine joins the token's price room
   * when the buy is placed). Default 10 000 ms.
   */
  readonly priceWaitMs?: number;
}

/** How often a fill waiting for its first price looks again (engine clock). */
const PRICE_POLL_MS = 100;

export interface PaperExecutor extends Executor {
  /** Intents accepted and not yet filled. */
  inFlight(): number;
}

export function createPaperExecutor(options: PaperExecutorOptions): PaperExecutor {
  const { clock, market } = options;
  const model = options.fillModel ?? DEFAULT_FILL_MODEL;
  const timers = new Map<string, TimerHandle>();
  let sink: ExecutionSink | undefined;
  let stopped = false;

  const priceWaitMs = options.priceWaitMs ?? 10_000;

  const settle = (intent: OrderIntent, out: ExecutionSink, submittedAt: number): void => {
    timers.delete(intent.id);
    const at = clock.now();
    const r = modelFill(intent, market.get(intent.mint), model);
    if (!r.ok && r.code === 'PAPER_NO_PRICE' && at - submittedAt < priceWaitMs && !stopped) {
      // no price yet: wait for the first tick of the price room the engine joined, within the bound
      timers.set(
        intent.id,
        clock.setTimeout(() => settle(intent, out, submittedAt), Math.min(PRICE_POLL_MS, priceWaitMs - (at - submittedAt))),
      );
      return;
    }
    if (!r.ok) {
      if (r.code === 'PAPER_NO_PRICE')
        out({ type: 'rejected', intentId: intent.id, at, code: r.code, reason: `${r.reason} (waited ${at - submittedAt} ms for a price)` });
      else out({ type: 'failed', intentId: intent.id, at, code: r.code, reason: r.reason, feeLamports: lamports(r.feeLamports) });
      return;
    }
    out({
      type: 'filled',
      intentId: intent.id,
      at,
      fill: {
        intentId: intent.id,
        side: intent.side,
        mint: intent.mint,
        decimals: intent.decimals,
        solAmount: lamports(r.solAmount),
        tokenAmount: rawAmount(r.tokenAmount),
        feeLamports: lamports(r.feeLamports),
        price: r.price,
        filledAt: at,
        ...(r.pool === undefined ? {} : { pool: r.pool }),
      },
    });
  };

  return {
    start(s) {
      sink = s;
      stopped = false;
      return Promise.resolve();
    },
    submit(intent) {
      const out = sink;
      if (!out) return Promise.reject(new ChainpilotError('PAPER_NOT_STARTED', 'paper executor: call start() before submit()', { retry: 'not_retryable' }));
      if (stopped)
        return Promise.reject(
          new ChainpilotError('PAPER_STOPPED', 'paper executor is stopped; no new intents', { retry: 'not_retryable', context: { intentId: intent.id } }),
        );
      if (timers.has(intent.id)) return Promise.resolve();
      out({ type: 'accepted', intentId: intent.id, at: clock.now() });
      const submittedAt = clock.now();
      timers.set(
        intent.id,
        clock.setTimeout(() => settle(intent, out, submittedAt), options.latencyMs),
      );
      return Promise.resolve();
    },
    cancel(intentId, reason) {
      const t = timers.get(intentId);
      if (t === undefined || !sink) return false;
      clock.clearTimeout(t);
      timers.delete(intentId);
      sink({ type: 'rejected', intentId, at: clock.now(), code: 'ENGINE_INTENT_CANCELLED', reason });
      return true;
    },
    stop() {
      stopped = true;
      // Intents still waiting for their latency never traded: report them expired.
      for (const [id, t] of timers) {
        clock.clearTimeout(t);
        sink?.({ type: 'expired', intentId: id, at: clock.now() });
      }
      timers.clear();
      return Promise.resolve();
    },
    inFlight: () => timers.size,
  };
}
