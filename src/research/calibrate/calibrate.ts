/**
 * `chainpilot calibrate`: fits the paper fill model (`paper.model`) from live runs. Each input is a
 * live decision log (`.jsonl`, `telemetry.decisionLog` of `run --live`) or a live journal (SQLite:
 * `store.path`); from every intent that reached the chain it reads the decision-to-fill latency, the
 * fee and rent paid, and whether it was refused at simulation or failed on chain. Refusals of the
 * rails (spend caps) are not failures: paper applies the same rails itself. A journal and the
 * decision log of one run give the same counts (a journal's DENIED rows are the log's refusals).
 *
 * Latency, decision to landing: from a journal that records each landing's slot (`landed_slot`), the
 * start of that slot on the chain's slot clock (slot-clock.ts: 400 ms resolution on the simulator's
 * ledger), else the block time (whole seconds); from a decision log, when the engine heard of the fill.
 * With landing slots, also the slots from the decision's slot to the landing's and the phase of the
 * slot grid (`landing`): a backtest then lands each fill at a slot start, as the chain did.
 *
 * The fit, with its uncertainty: the latencies themselves (at most {@link MAX_LATENCIES}, evenly
 * spaced quantiles when there are more) with their 10/50/90th percentiles; the median fee and rent;
 * each failure rate with its 95 % Wilson interval.
 */
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { ChainpilotError } from '../../core/index.js';
import type { DecisionEntry } from '../../engine/logs/decision-log.js';
import { isSlippageRefusal } from './slippage-refusal.js';
import { DEFAULT_SLOT_MS, fitSlotClock, type SlotClock } from './slot-clock.js';
import { DEFAULT_POOL_FEE_BPS, fitExtraSlippageBps, type DriftObservation } from './extra-slippage.js';

export { DEFAULT_POOL_FEE_BPS, fitExtraSlippageBps, type DriftObservation } from './extra-slippage.js';

/** Where a fill's latency came from. */
export type LatencySource = 'slot' | 'block-time' | 'decision-log';

/** One intent live sent on its way (past the rails). */
export interface LiveOutcome {
  /** `slippage`: the price moved past the intent's slippage (refused at simulation or failed on chain); the fill model decides those itself. */
  readonly outcome: 'filled' | 'slippage' | 'simulation' | 'on-chain' | 'other';
  readonly latencyMs: number | undefined;
  /** Where a fill's latency came from: its landing slot, its block time (whole seconds), or the decision log's fill line. */
  readonly latencyFrom?: LatencySource;
  /** With a landing slot: slots from the one running at the decision to the landing's (1: the next slot). */
  readonly landingSlots?: number;
  /** With a landing slot: decision to when the executor saw the landing (the journal row's last update), ms. */
  readonly reportMs?: number;
  readonly feeLamports: bigint;
  readonly rentLamports: bigint;
}

export interface RateFit {
  readonly rate: number;
  readonly events: number;
  readonly trials: number;
  /** 95 % Wilson score interval. */
  readonly low: number;
  readonly high: number;
}

export interface CalibrationFit {
  readonly sources: readonly string[];
  readonly intents: number;
  readonly fills: number;
  readonly latencyMs: readonly number[];
  readonly latencyQuantilesMs: { readonly p10: number; readonly p50: number; readonly p90: number } | undefined;
  /** How many fills' latency came from each source. */
  readonly latencyFrom: Readonly<Record<LatencySource, number>>;
  /** The resolution of the fitted latencies, in words (for the YAML comment and the bench). */
  readonly latencyResolution: string;
  /** The widest uncertainty of a slot clock used (ms), when any fill's latency came from its slot. */
  readonly slotUncertaintyMs: number | undefined;
  /** When every fill landed in a known slot of one slot grid: the grid and the slot counts to draw (`paper.model.landing`). */
  readonly landing: LandingFit | undefined;
  readonly feeLamports: bigint;
  readonly feeRangeLamports: readonly [bigint, bigint] | undefined;
  readonly rentLamports: bigint;
  readonly rentBuys: number;
  readonly simulation: RateFit;
  readonly onChain: RateFit;
  /** Refusals and failures because the price moved past the slippage: not drawn (the fill model's slippage check decides them), reported. */
  readonly slippage: RateFit;
}

/** The slot grid the fitted runs' chains shared and the slots each fill took from its decision to its landing. */
export interface LandingFit {
  readonly slotMs: number;
  /** Slot starts lie at `phaseMs` modulo `slotMs` on the run clock (Unix ms). */
  readonly phaseMs: number;
  /** Slots from the one running at the decision to the landing's (at most {@link MAX_LATENCIES}, quantiles beyond). */
  readonly slots: readonly number[];
  /**
   * Decision to when live heard of each landing (the engine learns of a fill then), ms, paired by
   * index with `slots`: a backtest fills at the landing's slot and reports the fill this long after the decision.
   */
  readonly reportMs: readonly number[];
}

/** Latencies kept in the block (quantiles beyond). */
export const MAX_LATENCIES = 200;

const SIMULATION_CODES = new Set(['LIVE_INSPECTION_SIMULATION', 'LIVE_INSPECTION_OUTFLOW']);
const RAIL_CODES = new Set(['LIVE_SPEND_CAP_TRADE', 'LIVE_SPEND_CAP_DAY', 'LIVE_INVALID_INTENT', 'LIVE_NO_REFERENCE_PRICE', 'LIVE_INTENT_ID_REPEATED']);

function classify(code: string | null | undefined, outcome: string, reason: string | null | undefined): LiveOutcome['outcome'] | undefined {
  if (code && RAIL_CODES.has(code)) return undefined;
  if (outcome === 'filled') return 'filled';
  // The output would not reach the intent's least accepted amount: paper's slippage check decides these from prices.
  if (isSlippageRefusal(code, reason)) return 'slippage';
  if (code && SIMULATION_CODES.has(code)) return 'simulation';
  if (code === 'LIVE_FAILED_ON_CHAIN' || outcome === 'failed') return 'on-chain';
  return 'other';
}

/** The outcomes of a live decision log. */
export function outcomesOfDecisionLog(text: string): LiveOutcome[] {
  const decided = new Map<string, number>();
  const out: LiveOutcome[] = [];
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    const e = JSON.parse(line) as DecisionEntry;
    if (e.kind === 'intent') decided.set(e.intentId, e.at);
    else if (e.kind === 'fill') {
      const at = decided.get(e.intentId);
      out.push({
        outcome: 'filled',
        latencyMs: at === undefined ? undefined : e.at - at,
        latencyFrom: 'decision-log',
        feeLamports: BigInt(e.feeLamports),
        rentLamports: BigInt(e.rentLamports ?? '0'),
      });
    } else if (e.kind === 'unfilled') {
      const kind = classify(e.code, e.outcome, e.reason);
      if (kind) out.push({ outcome: kind, latencyMs: undefined, feeLamports: BigInt(e.feeLamports), rentLamports: 0n });
    }
  }
  return out;
}

interface JournalRow {
  intent_json: string;
  state: string;
  code: string | null;
  reason: string | null;
  fill_json: string | null;
  fee_lamports: string | null;
  landed_slot: number | null;
  updated_at: number;
}

interface LandedRow {
  readonly createdAt: number | undefined;
  readonly updatedAt: number;
  readonly slot: number | null;
  readonly fill: { readonly filledAt: number; readonly feeLamports: string; readonly rentLamports?: string };
}

/** The outcomes of a live journal (SQLite), read only, and the slot clock its landings fit (if any). */
export function readJournal(path: string, slotMs = DEFAULT_SLOT_MS): { outcomes: LiveOutcome[]; slotClock: SlotClock | undefined } {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    // `landed_slot` (the landing slot) is in journals written since it was added; older ones read without it.
    const columns = db.prepare<[], { name: string }>('PRAGMA table_info(intents)').all();
    const slotColumn = columns.some((c) => c.name === 'landed_slot') ? 'landed_slot' : 'NULL AS landed_slot';
    const rows = db
      .prepare<[], JournalRow>(`SELECT intent_json, state, code, reason, fill_json, fee_lamports, updated_at, ${slotColumn} FROM intents WHERE done = 1`)
      .all();
    const landed: LandedRow[] = [];
    const out: LiveOutcome[] = [];
    for (const r of rows) {
      const createdAt = (JSON.parse(r.intent_json) as { createdAt?: number }).createdAt;
      if (r.state === 'LANDED' && r.fill_json !== null) {
        landed.push({ createdAt, updatedAt: r.updated_at, slot: r.landed_slot, fill: JSON.parse(r.fill_json) as LandedRow['fill'] });
        continue;
      }
      // DENIED is how inspection refusals (simulation, output, outflow) are journaled, as the decision
      // log's `rejected`; the rails' denials drop out in classify, as they do from a decision log.
      const kind = classify(r.code, r.state === 'FAILED_ON_CHAIN' ? 'failed' : r.state === 'EXPIRED' ? 'expired' : 'rejected', r.reason);
      if (kind) out.push({ outcome: kind, latencyMs: undefined, feeLamports: BigInt(r.fee_lamports ?? '0'), rentLamports: 0n });
    }
    // A fill's filledAt is its block time (whole seconds); with the landing slots, the slot clock gives the slot's start.
    const slotClock = fitSlotClock(
      landed.flatMap((l) => (l.slot === null ? [] : [{ slot: l.slot, blockTimeMs: l.fill.filledAt }])),
      slotMs,
    );
    for (const l of landed) {
      const landedAt = slotClock !== undefined && l.slot !== null ? slotClock.timeOf(l.slot) : undefined;
      const slots = slotClock !== undefined && l.slot !== null && l.createdAt !== undefined ? l.slot - slotClock.slotAt(l.createdAt) : undefined;
      out.push({
        outcome: 'filled',
        latencyMs: l.createdAt === undefined ? undefined : (landedAt ?? l.fill.filledAt) - l.createdAt,
        latencyFrom: landedAt === undefined ? 'block-time' : 'slot',
        ...(slots === undefined || l.createdAt === undefined ? {} : { landingSlots: slots, reportMs: l.updatedAt - l.createdAt }),
        feeLamports: BigInt(l.fill.feeLamports),
        rentLamports: BigInt(l.fill.rentLamports ?? '0'),
      });
    }
    return { outcomes: out, slotClock };
  } finally {
    db.close();
  }
}

/** The outcomes of a live journal (SQLite), read only. */
export function outcomesOfJournal(path: string, slotMs = DEFAULT_SLOT_MS): LiveOutcome[] {
  return readJournal(path, slotMs).outcomes;
}

/** 95 % Wilson score interval of `k` events in `n` trials. */
export function wilson(k: number, n: number): RateFit {
  if (n === 0) return { rate: 0, events: 0, trials: 0, low: 0, high: 1 };
  const z = 1.959963984540054;
  const p = k / n;
  const d = 1 + (z * z) / n;
  const c = (p + (z * z) / (2 * n)) / d;
  const h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return { rate: p, events: k, trials: n, low: Math.max(0, c - h), high: Math.min(1, c + h) };
}

const medianBig = (xs: readonly bigint[]): bigint => {
  if (xs.length === 0) return 0n;
  const s = [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return s[(s.length - 1) >> 1]!;
};
const nearestRank = <T>(sorted: readonly T[], q: number): T => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;

/** At most {@link MAX_LATENCIES} of sorted values: evenly spaced quantiles when there are more. */
const keptOf = <T>(sorted: readonly T[]): T[] =>
  sorted.length <= MAX_LATENCIES ? [...sorted] : Array.from({ length: MAX_LATENCIES }, (_, i) => nearestRank(sorted, (i + 0.5) / MAX_LATENCIES));

/** The landing block: only when every fill landed in a known slot and the chains share one slot grid (`grid`). */
function landingOf(fills: readonly LiveOutcome[], grid: { slotMs: number; phaseMs: number } | undefined): LandingFit | undefined {
  if (grid === undefined || fills.length === 0 || fills.some((f) => f.landingSlots === undefined)) return undefined;
  // (slots, report) pairs in order, kept together: at most MAX_LATENCIES, evenly spaced ranks beyond
  const pairs = fills.map((f) => [Math.max(1, f.landingSlots!), Math.max(0, f.reportMs ?? 0)] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const kept = keptOf(pairs);
  return { slotMs: grid.slotMs, phaseMs: grid.phaseMs, slots: kept.map((p) => p[0]), reportMs: kept.map((p) => p[1]) };
}

/**
 * Fits the model from the outcomes of live runs; `grid`: the slot grid every journal's chain shared
 * (slot time and phase), when each had its landing slots.
 */
export function fitModel(
  outcomes: readonly LiveOutcome[],
  sources: readonly string[],
  slotUncertaintyMs?: number,
  grid?: { slotMs: number; phaseMs: number },
): CalibrationFit {
  const fills = outcomes.filter((o) => o.outcome === 'filled');
  const latencyFrom: Record<LatencySource, number> = { slot: 0, 'block-time': 0, 'decision-log': 0 };
  for (const f of fills) if (f.latencyMs !== undefined && f.latencyFrom !== undefined) latencyFrom[f.latencyFrom]++;
  const lat = fills.flatMap((f) => (f.latencyMs === undefined ? [] : [Math.max(0, f.latencyMs)])).sort((a, b) => a - b);
  const kept = keptOf(lat);
  const fees = fills.map((f) => f.feeLamports).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const rents = fills.flatMap((f) => (f.rentLamports > 0n ? [f.rentLamports] : []));
  const sims = outcomes.filter((o) => o.outcome === 'simulation').length;
  const chain = outcomes.filter((o) => o.outcome === 'on-chain').length;
  return {
    sources,
    intents: outcomes.length,
    fills: fills.length,
    latencyMs: kept,
    latencyQuantilesMs: lat.length ? { p10: nearestRank(lat, 0.1), p50: nearestRank(lat, 0.5), p90: nearestRank(lat, 0.9) } : undefined,
    latencyFrom,
    latencyResolution: resolutionOf(latencyFrom, slotUncertaintyMs),
    slotUncertaintyMs: latencyFrom.slot > 0 ? slotUncertaintyMs : undefined,
    landing: landingOf(fills, grid),
    feeLamports: medianBig(fees),
    feeRangeLamports: fees.length ? [fees[0]!, fees[fees.length - 1]!] : undefined,
    rentLamports: medianBig(rents),
    rentBuys: rents.length,
    // Simulation refuses before sending: of everything that reached inspection. On chain: of what was sent and landed.
    simulation: wilson(sims, outcomes.length),
    onChain: wilson(chain, fills.length + chain),
    slippage: wilson(outcomes.filter((o) => o.outcome === 'slippage').length, outcomes.length),
  };
}

/** The latencies' resolution in words: how many came from slots (and to within what), block times, decision logs. */
function resolutionOf(from: Readonly<Record<LatencySource, number>>, slotUncertaintyMs: number | undefined): string {
  const parts: string[] = [];
  if (from.slot > 0)
    parts.push(`${from.slot} from landing slots (slot start, the earliest the block times allow, at most ${slotUncertaintyMs ?? '?'} ms early)`);
  if (from['block-time'] > 0) parts.push(`${from['block-time']} from block times (whole seconds: no landing slot, or slots not evenly spaced)`);
  if (from['decision-log'] > 0) parts.push(`${from['decision-log']} from decision logs (when the engine heard of the fill)`);
  return parts.length > 0 ? parts.join('; ') : 'no latency';
}

/** Reads every source (decision logs and journals) and fits the model; `slotMs`: the chain's slot time (each journal's slot clock). */
export function calibrate(paths: readonly string[], slotMs = DEFAULT_SLOT_MS): CalibrationFit {
  if (paths.length === 0)
    throw new ChainpilotError('BACKTEST_NO_LIVE_DATA', 'calibrate: give at least one live decision log or journal', { retry: 'not_retryable' });
  const outcomes: LiveOutcome[] = [];
  let slotUncertaintyMs: number | undefined;
  /** The slot grid's phase of each journal with a slot clock (one value: the chains shared a grid). */
  const phases = new Set<number>();
  let journals = 0;
  for (const p of paths) {
    let text: Buffer;
    try {
      text = readFileSync(p);
    } catch (e) {
      throw new ChainpilotError('BACKTEST_NO_LIVE_DATA', `calibrate: cannot read ${p} (${(e as NodeJS.ErrnoException).code ?? 'error'})`, {
        retry: 'not_retryable',
      });
    }
    const sqlite = text.subarray(0, 16).toString('latin1') === 'SQLite format 3\0';
    if (sqlite) {
      // each journal is its own chain (a rehearsal's ledger starts at slot 1): its own slot clock
      const j = readJournal(p, slotMs);
      outcomes.push(...j.outcomes);
      journals++;
      if (j.slotClock) {
        slotUncertaintyMs = Math.max(slotUncertaintyMs ?? 0, j.slotClock.uncertaintyMs);
        phases.add(((j.slotClock.anchorMs % slotMs) + slotMs) % slotMs);
      }
    } else outcomes.push(...outcomesOfDecisionLog(text.toString('utf8')));
  }
  const grid = journals === paths.length && phases.size === 1 ? { slotMs, phaseMs: [...phases][0]! } : undefined;
  const fit = fitModel(outcomes, paths, slotUncertaintyMs, grid);
  if (fit.fills === 0)
    throw new ChainpilotError(
      'BACKTEST_NO_LIVE_DATA',
      `calibrate: no live fill in ${paths.join(', ')}; give the decision log or journal of a live run that traded`,
      {
        retry: 'not_retryable',
      },
    );
  return fit;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
const rateLine = (name: string, r: RateFit, of: string): string =>
  `    ${name}: ${Number(r.rate.toFixed(6))}   # ${r.events} of ${r.trials} ${of}; 95 % interval ${pct(r.low)} to ${pct(r.high)} (Wilson)`;

/** The second stage's result: the `extraSlippageBps` to use and what it came from. */
export interface SecondStage {
  readonly extraSlippageBps: number;
  readonly usedBps: number;
  /** Fills both sides made, each with its price drift. */
  readonly pairs: number;
  /** Intents one side filled and the other refused on slippage: drift beyond the slippage, ranked, not measured. */
  readonly refusals: number;
  readonly reports: number;
  /** The floor applied: minus the pool fee paper charges (`paper.defaultPoolFeeBps`). */
  readonly floorBps: number;
  /** With graduations given: the fit of the fills in graduated pools, apart (`extraSlippageBps` is then the bonding curve's). */
  readonly graduated?: { readonly extraSlippageBps: number; readonly pairs: number };
}

interface PairSideJson {
  readonly outcome?: unknown;
  readonly code?: unknown;
  readonly slippage?: unknown;
  readonly decidedAt?: unknown;
}

const slippageRefused = (s: PairSideJson | null | undefined): boolean =>
  !!s && s.outcome !== 'filled' && (s.slippage === true || isSlippageRefusal(typeof s.code === 'string' ? s.code : null, null));

/** The observations of one report's pairs: paired fills with a drift, and one-sided slippage refusals. */
function observationsOf(
  pairs: readonly { side?: unknown; mint?: unknown; priceDriftBps?: unknown; live?: PairSideJson | null; backtest?: PairSideJson | null }[],
  graduations: ReadonlyMap<string, number> | undefined,
): DriftObservation[] {
  const out: DriftObservation[] = [];
  for (const x of pairs) {
    if (x.side !== 'buy' && x.side !== 'sell') continue;
    const at = x.live?.decidedAt ?? x.backtest?.decidedAt;
    const grad = typeof x.mint === 'string' ? graduations?.get(x.mint) : undefined;
    const kind = graduations === undefined ? {} : { graduated: grad !== undefined && typeof at === 'number' && at >= grad };
    if (typeof x.priceDriftBps === 'number') out.push({ side: x.side, priceDriftBps: x.priceDriftBps, ...kind });
    else if (x.backtest?.outcome === 'filled' && slippageRefused(x.live)) out.push({ side: x.side, priceDriftBps: null, censored: 'adverse', ...kind });
    else if (x.live?.outcome === 'filled' && slippageRefused(x.backtest)) out.push({ side: x.side, priceDriftBps: null, censored: 'favourable', ...kind });
  }
  return out;
}

/**
 * The second stage of a calibration: from the `liveVsBacktest` pairs of backtests' `report.json`
 * files (each a backtest of a live run's recording, verified against that run with
 * `--verify-against`), the `extraSlippageBps` that gives back (or adds) the cost live paid beyond the
 * model: `usedBps` (what those backtests used) plus the median of the whole adverse-drift
 * distribution, slippage refusals included ({@link fitExtraSlippageBps}), never below minus the pool fee.
 */
export function secondStage(
  reportPaths: readonly string[],
  usedBps: number,
  poolFeeBps = DEFAULT_POOL_FEE_BPS,
  graduations?: ReadonlyMap<string, number>,
): SecondStage {
  const observations: DriftObservation[] = [];
  for (const p of reportPaths) {
    let report: unknown;
    try {
      report = JSON.parse(readFileSync(p, 'utf8'));
    } catch (e) {
      throw new ChainpilotError(
        'BACKTEST_NO_LIVE_DATA',
        `calibrate --against: cannot read ${p} as a backtest's report.json (${e instanceof SyntaxError ? 'not JSON' : ((e as NodeJS.ErrnoException).code ?? 'error')})`,
        { retry: 'not_retryable' },
      );
    }
    const lvb = (report as { liveVsBacktest?: { pairs?: unknown } }).liveVsBacktest;
    if (!lvb || !Array.isArray(lvb.pairs)) {
      throw new ChainpilotError(
        'BACKTEST_NO_LIVE_DATA',
        `calibrate --against: ${p} has no live-vs-backtest pairs; give the report.json of a backtest run with --verify-against LIVE.decisions.jsonl`,
        { retry: 'not_retryable' },
      );
    }
    observations.push(...observationsOf(lvb.pairs as Parameters<typeof observationsOf>[0], graduations));
  }
  // With the graduations, fills in graduated pools are fitted apart, when they have a measured drift.
  const amm = observations.filter((o) => o.graduated === true);
  const gradExtra = fitExtraSlippageBps(amm, usedBps, poolFeeBps);
  const curve = gradExtra === undefined ? observations : observations.filter((o) => o.graduated !== true);
  const extra = fitExtraSlippageBps(curve, usedBps, poolFeeBps) ?? gradExtra;
  if (extra === undefined) {
    throw new ChainpilotError('BACKTEST_NO_LIVE_DATA', `calibrate --against: no paired fill with a price drift in ${reportPaths.join(', ')}; nothing to fit`, {
      retry: 'not_retryable',
    });
  }
  const refusals = observations.filter((o) => o.censored !== undefined).length;
  return {
    extraSlippageBps: extra,
    usedBps,
    pairs: observations.length - refusals,
    refusals,
    reports: reportPaths.length,
    floorBps: -poolFeeBps,
    ...(gradExtra === undefined ? {} : { graduated: { extraSlippageBps: gradExtra, pairs: amm.filter((o) => o.censored === undefined).length } }),
  };
}

/** The `paper.model` block, as YAML with the fit's uncertainty in comments (paste it under the deployment's `paper:`). */
export function modelBlockYaml(f: CalibrationFit, stage2?: SecondStage): string {
  const q = f.latencyQuantilesMs;
  return [
    `# paper.model fitted by chainpilot calibrate from ${f.sources.length} live run file(s): ${f.sources.join(', ')}`,
    `# ${f.fills} fills of ${f.intents} intents that passed the rails; paste under the deployment's paper: key`,
    'paper:',
    '  model:',
    `    # ${f.latencyMs.length} latencies${q ? `; p10 ${q.p10} ms, median ${q.p50} ms, p90 ${q.p90} ms` : ''}, each fill draws one with the run's seed`,
    `    # latency, decision to landing: ${f.latencyResolution}`,
    `    latencyMs: [${f.latencyMs.join(', ')}]`,
    ...landingYaml(f.landing),
    `    feeLamports: ${f.feeLamports}   # median of ${f.fills} fills${f.feeRangeLamports ? ` (min ${f.feeRangeLamports[0]}, max ${f.feeRangeLamports[1]})` : ''}`,
    `    rentLamports: ${f.rentLamports}   # median rent of ${f.rentBuys} buys that opened a token account`,
    '    ownImpact: true',
    rateLine('simulationFailureRate', f.simulation, 'intents refused at simulation'),
    rateLine('onChainFailureRate', f.onChain, 'landed transactions failed on chain'),
    `    # not drawn: ${f.slippage.events} of ${f.slippage.trials} intents (${pct(f.slippage.rate)}) failed on slippage; the fill model decides those from prices`,
    ...(stage2
      ? [
          `    extraSlippageBps: ${stage2.extraSlippageBps}   # second stage: ${stage2.usedBps} plus the median adverse drift of ${stage2.pairs} paired fills and ${stage2.refusals} one-sided slippage refusals in ${stage2.reports} report(s), at least ${stage2.floorBps} (the pool fee)${stage2.graduated ? `; of the ${stage2.pairs - stage2.graduated.pairs} fills on a bonding curve` : ''}`,
          ...(stage2.graduated
            ? [
                `    graduatedExtraSlippageBps: ${stage2.graduated.extraSlippageBps}   # the same of the ${stage2.graduated.pairs} paired fills (and refusals) in graduated pools (another fee), fitted apart`,
              ]
            : []),
        ]
      : []),
    '',
  ].join('\n');
}

/** The `landing:` lines of the block (none without a slot grid). */
function landingYaml(l: LandingFit | undefined): string[] {
  if (l === undefined) return [];
  const q = (x: number): number => nearestRank(l.slots, x);
  return [
    `    # each fill lands at the start of a slot: ${l.slots.length} slot counts from the decision's slot (p10 ${q(0.1)}, median ${q(0.5)}, p90 ${q(0.9)}), drawn in place of latencyMs`,
    '    landing:',
    `      slotMs: ${l.slotMs}`,
    `      phaseMs: ${l.phaseMs}   # slot starts on the run clock, modulo slotMs, as the live runs' landings pinned them`,
    `      slots: [${l.slots.join(', ')}]`,
    `      # when live heard of each landing, from the decision (ms, paired with slots): the engine learns of the fill then`,
    `      reportMs: [${l.reportMs.join(', ')}]`,
  ];
}
