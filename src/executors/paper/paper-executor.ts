/**
 * The paper executor: fills intents from what the feed observed, after a latency on the injected
 * clock, through the fill model. No wall clock and no randomness, so it serves backtests too.
 */
import { ChainpilotError, lamports, rawAmount, type Clock, type Lamports, type Random, type TimerHandle, type UnixMs } from '../../core/index.js';
import type { MarketObservation } from '../../engine/market/market-view.js';
import { priceOf } from '../../engine/market/portfolio.js';
import type { ExecutionSink, Executor, OrderIntent } from '../../engine/orders/execution-port.js';
import type { MarketView } from '../../engine/market/market-view.js';
import type { AdmissionLimits } from '../admission.js';
import { DEFAULT_FILL_MODEL, inspectQuote, modelFill, type FillModelOptions, type ModelledFill, type Reserves } from './fill-model.js';
import { createPaperRails } from './paper-rails.js';

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
  /**
   * How long an operator's intent (manual close or forced entry) waits before its latency runs, on
   * the engine clock (`paper.manualHold`), so that a cancel from the CLI or the dashboard can catch
   * it even when the simulator runs many times faster than the wall. Default 0: no hold.
   */
  readonly manualHoldMs?: number;
  /**
   * The live executor's caps (the deployment's `live.maxTradeSpendSol` / `maxDaySpendSol`): intents
   * are admitted by the live admission module and refused with its code. Absent: no cap.
   */
  readonly rails?: AdmissionLimits;
  /** Spend per UTC day (`YYYY-MM-DD`) committed before this run (a resumed paper book's), counted against `rails`' day cap. */
  readonly railsSpentBefore?: ReadonlyMap<string, bigint>;
  /** The calibrated parts of the model (`paper.model`); absent: the fixed latency, no rent, impact or failures. */
  readonly model?: PaperModel;
  /** Draws of the calibrated model (latency, failures): a fork of the run's seeded random. Required with `model`. */
  readonly random?: Random;
}

/** What `chainpilot calibrate` fits from live runs (config `paper.model`). */
export interface PaperModel {
  /** Decision-to-fill latencies to draw from (ms). */
  readonly latencyMs: readonly number[];
  /**
   * Landing at slot starts: a fill draws a slot count (from the decision's slot) in place of a latency,
   * and with `reportMs` (paired by index) is reported that long after the decision, as live heard of it.
   */
  readonly landing?: { readonly slotMs: number; readonly phaseMs: number; readonly slots: readonly number[]; readonly reportMs?: readonly number[] };
  /** Rent of the token account a buy creates (the first buy of a token). */
  readonly rentLamports: Lamports;
  /** Our fills move the reserves we observe until the next observed tick. */
  readonly ownImpact: boolean;
  readonly simulationFailureRate: number;
  readonly onChainFailureRate: number;
}

type Fate = 'fill' | 'simulation' | 'on-chain';

/** One observed state of a pool: our own impact applies until it changes. */
const tickKey = (o: MarketObservation): string =>
  `${o.priceAt ?? ''}|${o.price ?? ''}|${o.solReserveLamports ?? ''}|${o.tokenReserveRaw ?? ''}|${o.pool ?? ''}`;

/** How often a fill waiting for its first price looks again (engine clock). */
const PRICE_POLL_MS = 100;

/**
 * The wait until the start of a drawn number of slots after the one running at `now`, and when the fill
 * is reported (undefined: at once); one draw, as a latency's.
 */
function slotLanding(l: NonNullable<PaperModel['landing']>, now: number, random: Random): { latencyMs: number; reportAt: number | undefined } {
  const i = random.int(0, l.slots.length - 1);
  const slot = Math.floor((now - l.phaseMs) / l.slotMs);
  const report = l.reportMs?.[i];
  return { latencyMs: l.phaseMs + (slot + (l.slots[i] ?? 1)) * l.slotMs - now, reportAt: report === undefined ? undefined : now + report };
}

/**
 * Reports held until live would have heard of them (a fill lands at its slot, the engine learns of it
 * when the executor's status poll sees it): `send` delivers at `at`, or at once when that has passed.
 */
function createReportDelay(clock: Clock) {
  const held = new Map<string, { readonly timer: TimerHandle; readonly fire: () => void }>();
  return {
    send(id: string, at: number | undefined, out: ExecutionSink, r: Parameters<ExecutionSink>[0]): void {
      if (at === undefined || at <= clock.now()) {
        out(r);
        return;
      }
      const fire = (): void => {
        held.delete(id);
        out({ ...r, at: Math.min(at, clock.now()) as UnixMs });
      };
      // a millisecond late: after the market's lines of that instant, which live's engine has before its status poll's answer
      held.set(id, { timer: clock.setTimeout(fire, at - clock.now() + 1), fire });
    },
    /** Delivers every held report now (the executor stops: what landed is reported). */
    flush(): void {
      for (const h of [...held.values()]) {
        clock.clearTimeout(h.timer);
        h.fire();
      }
    },
    size: (): number => held.size,
  };
}

/** A calibrated model's fill that failed on chain (at its drawn rate): the fee was paid. */
function onChainFailure(intent: OrderIntent, at: UnixMs, m: PaperModel | undefined, fee: bigint): Parameters<ExecutionSink>[0] {
  const reason = `the transaction failed on chain (paper: at the calibrated rate ${String(m?.onChainFailureRate ?? 0)}); the fee was paid`;
  return { type: 'failed', intentId: intent.id, at, code: 'LIVE_FAILED_ON_CHAIN', reason, feeLamports: lamports(fee) };
}

/** Why a calibrated model's intent was refused by its simulation. */
const simulationFailure = (m: PaperModel | undefined): string =>
  `simulation of the transaction failed (paper: at the calibrated rate ${String(m?.simulationFailureRate ?? 0)}); it was not signed`;

/**
 * The calibrated model's draws for an intent, in submission order from the run's seed (a backtest
 * draws the same): its latency (or landing slot and report time) and its fate.
 */
function drawCalibrated(
  m: PaperModel,
  random: Random,
  submittedAt: number,
  latencyMs: number,
): { latencyMs: number; reportAt: number | undefined; fate: Fate } {
  let reportAt: number | undefined;
  if (m.landing) {
    const landing = slotLanding(m.landing, submittedAt, random);
    latencyMs = landing.latencyMs;
    reportAt = landing.reportAt;
  } else latencyMs = m.latencyMs[random.int(0, m.latencyMs.length - 1)] ?? latencyMs;
  const fate: Fate = random.chance(m.simulationFailureRate) ? 'simulation' : random.chance(m.onChainFailureRate) ? 'on-chain' : 'fill';
  return { latencyMs, reportAt, fate };
}

/** The `filled` report of a modelled fill; `rent`: the token account a first buy opens, paid with the trade. */
function filledReport(intent: OrderIntent, at: UnixMs, r: Extract<ModelledFill, { ok: true }>, rent: bigint): Parameters<ExecutionSink>[0] {
  const solAmount = r.solAmount + rent;
  return {
    type: 'filled',
    intentId: intent.id,
    at,
    fill: {
      intentId: intent.id,
      side: intent.side,
      mint: intent.mint,
      decimals: intent.decimals,
      solAmount: lamports(solAmount),
      tokenAmount: rawAmount(r.tokenAmount),
      feeLamports: lamports(r.feeLamports),
      price: rent > 0n ? priceOf(solAmount, r.tokenAmount, intent.decimals) : r.price,
      filledAt: at,
      ...(r.pool === undefined ? {} : { pool: r.pool }),
      ...(rent > 0n ? { rentLamports: lamports(rent) } : {}),
    },
  };
}

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
  const rails = options.rails ? createPaperRails(options.rails, options.railsSpentBefore) : undefined;
  const m = options.model;
  const random = options.random;
  if (m && !random) throw new ChainpilotError('PAPER_NOT_STARTED', 'paper executor: a calibrated model needs a seeded random', { retry: 'not_retryable' });
  const fates = new Map<string, Fate>();
  const manualHoldMs = options.manualHoldMs ?? 0;
  /** Intents in their latency, with what re-arming their fill for a manual hold needs (kept only with a hold). */
  const waiting = new Map<string, { readonly intent: OrderIntent; readonly out: ExecutionSink; readonly submittedAt: number; readonly latencyMs: number }>();
  /** Reserves as our own fills left them, per mint, until the next observed tick. */
  const moved = new Map<string, { readonly tick: string; readonly reserves: Reserves }>();
  /** Tokens whose account the paper wallet has (created by an earlier buy): no rent again. */
  const accounts = new Set<string>();
  /** When each intent's outcome is reported (calibrated landing with report times), and the reports held until then. */
  const reportAt = new Map<string, number>();
  const delay = createReportDelay(clock);
  /** The output each intent's swap was quoted at its inspection (calibrated model): the base of its least output at landing. */
  const quotes = new Map<string, bigint>();

  const settle = (intent: OrderIntent, sink: ExecutionSink, submittedAt: number): void => {
    timers.delete(intent.id);
    waiting.delete(intent.id);
    const out: ExecutionSink = (r) => {
      const at = reportAt.get(intent.id);
      reportAt.delete(intent.id);
      delay.send(intent.id, at, sink, r);
    };
    const at = clock.now();
    const fate = fates.get(intent.id) ?? 'fill';
    if (fate === 'simulation') {
      fates.delete(intent.id);
      out({
        type: 'rejected',
        intentId: intent.id,
        at,
        code: 'LIVE_INSPECTION_SIMULATION',
        reason: simulationFailure(m),
      });
      return;
    }
    const obs = market.get(intent.mint);
    const own = m?.ownImpact && obs ? moved.get(intent.mint) : undefined;
    const r = modelFill(intent, obs, model, own && obs && own.tick === tickKey(obs) ? own.reserves : undefined, quotes.get(intent.id));
    if (r.ok && fate === 'on-chain') {
      fates.delete(intent.id);
      quotes.delete(intent.id);
      out(onChainFailure(intent, at, m, r.feeLamports));
      return;
    }
    if (!r.ok && r.code === 'PAPER_NO_PRICE' && at - submittedAt < priceWaitMs && !stopped) {
      // no price yet: wait for the first tick of the price room the engine joined, within the bound
      timers.set(
        intent.id,
        clock.setTimeout(() => settle(intent, sink, submittedAt), Math.min(PRICE_POLL_MS, priceWaitMs - (at - submittedAt))),
      );
      return;
    }
    fates.delete(intent.id);
    quotes.delete(intent.id);
    if (!r.ok) {
      if (r.code === 'PAPER_NO_PRICE')
        out({ type: 'rejected', intentId: intent.id, at, code: r.code, reason: `${r.reason} (waited ${at - submittedAt} ms for a price)` });
      else out({ type: 'failed', intentId: intent.id, at, code: r.code, reason: r.reason, feeLamports: lamports(r.feeLamports) });
      return;
    }
    if (m?.ownImpact && obs) moved.set(intent.mint, { tick: tickKey(obs), reserves: r.reservesAfter });
    // The first buy of a token opens its token account: its rent leaves the wallet with the trade (as live reads it).
    const rent = m && intent.side === 'buy' && !accounts.has(intent.mint) ? m.rentLamports : 0n;
    // kept only where rent is modelled (a wallet keeps its token accounts, so this grows with the tokens bought)
    if (m && intent.side === 'buy') accounts.add(intent.mint);
    out(filledReport(intent, at, r, rent));
  };

  /**
   * Live's inspection of a calibrated model's intent, at its decision once the market of that instant
   * is all observed: a refusal (simulation at the calibrated rate, or an output below the intent's
   * least) is reported at once and nothing is sent, as live's; a quote that passes sets the least
   * output its landing must reach. Then `land` arms the landing.
   */
  const inspect = (intent: OrderIntent, sink: ExecutionSink, land: () => void): void => {
    timers.delete(intent.id);
    const refuse = (code: string, reason: string): void => {
      fates.delete(intent.id);
      reportAt.delete(intent.id);
      waiting.delete(intent.id);
      sink({ type: 'rejected', intentId: intent.id, at: clock.now(), code, reason });
    };
    if (fates.get(intent.id) === 'simulation') {
      refuse('LIVE_INSPECTION_SIMULATION', simulationFailure(m));
      return;
    }
    const obs = market.get(intent.mint);
    const own = m?.ownImpact && obs ? moved.get(intent.mint) : undefined;
    const q = inspectQuote(intent, obs, model, own && obs && own.tick === tickKey(obs) ? own.reserves : undefined);
    if (q?.ok === false) {
      refuse(q.code, q.reason);
      return;
    }
    if (q) quotes.set(intent.id, q.amountOut);
    land();
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
      const denial = rails?.admit(intent, clock.now());
      if (denial) {
        // As the live executor reports a refusal of its admission: rejected, nothing built.
        out({ type: 'rejected', intentId: intent.id, at: clock.now(), code: denial.code, reason: denial.reason });
        return Promise.resolve();
      }
      out({ type: 'accepted', intentId: intent.id, at: clock.now() });
      const submittedAt = clock.now();
      let latencyMs = options.latencyMs;
      if (m && random) {
        const d = drawCalibrated(m, random, submittedAt, latencyMs);
        latencyMs = d.latencyMs;
        if (d.reportAt !== undefined) reportAt.set(intent.id, d.reportAt);
        if (d.fate !== 'fill') fates.set(intent.id, d.fate);
      }
      if (m) {
        // inspected after every line of this instant (the ledger live inspects holds them all), then landed
        const land = (): void => {
          timers.set(
            intent.id,
            clock.setTimeout(() => settle(intent, out, submittedAt), Math.max(0, submittedAt + latencyMs - clock.now())),
          );
        };
        timers.set(
          intent.id,
          clock.setTimeout(() => inspect(intent, out, land), 0),
        );
      } else
        timers.set(
          intent.id,
          clock.setTimeout(() => settle(intent, out, submittedAt), latencyMs),
        );
      if (manualHoldMs > 0) waiting.set(intent.id, { intent, out, submittedAt, latencyMs });
      return Promise.resolve();
    },
    holdManual(intentId) {
      const w = waiting.get(intentId);
      const t = timers.get(intentId);
      if (!w || t === undefined) return;
      waiting.delete(intentId);
      clock.clearTimeout(t);
      // The hold comes first; the latency (and a wait for the first price) run after it.
      const start = w.submittedAt + manualHoldMs;
      timers.set(
        intentId,
        clock.setTimeout(() => settle(w.intent, w.out, start), Math.max(0, start + w.latencyMs - clock.now())),
      );
    },
    cancel(intentId, reason) {
      const t = timers.get(intentId);
      if (t === undefined || !sink) return false;
      clock.clearTimeout(t);
      timers.delete(intentId);
      waiting.delete(intentId);
      reportAt.delete(intentId);
      quotes.delete(intentId);
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
      waiting.clear();
      fates.clear();
      reportAt.clear();
      quotes.clear();
      delay.flush();
      return Promise.resolve();
    },
    inFlight: () => timers.size + delay.size(),
  };
}
