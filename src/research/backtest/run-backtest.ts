/**
 * Composition root of a backtest: the deployment's strategies, risk gate, exits and paper executor
 * (the paper session, unchanged) on a replay feed and a manual clock. The clock is advanced to each
 * recorded line's run-clock time before the line is delivered, so timers fire in order between
 * frames exactly as they did in the recorded run; asynchronous handlers are awaited per line;
 * `ctx.data` is answered from the recording; an operator's manual actions are applied at their
 * recorded instants through the engine, as the run applied them. Nothing below this file knows it is a backtest.
 */
import { performance } from 'node:perf_hooks';
import { manualClock, seededRandom, silentLogger, type Logger, type ManualClock, type UnixMs } from '../../core/index.js';
import type { Deployment, LoadedDeployment } from '../../config/index.js';
import type { DecisionEntry } from '../../engine/logs/decision-log.js';
import type { RunSummary } from '../../engine/logs/engine-stats.js';
import { manualActionOf } from '../../engine/orders/manual-actions.js';
import type { StrategyInstance } from '../../engine/strategy/strategy-instance.js';
import { K, type Recording } from '../replay/prepared-recording.js';
import { preparedBounds, preparedCursor, type LineCursor, type ReplayBounds } from '../replay/prepared-replay.js';
import { preparedFromParsed } from '../replay/prepared-cache.js';
import type { ParsedRecording } from '../replay/recording-reader.js';
import type { StreamedRecording } from '../replay/recording-stream.js';
import { createReplayData, type DataMissFallback } from '../replay/replay-data.js';
import { createReplayFeed, REPLAY_DEDUP_CAPACITY, type ReplayFeedStats } from '../replay/replay-feed.js';
import type { RecordingHeader } from '../replay/recording-format.js';
import { createPaperSession, type PaperSession } from '../../runtime/paper/paper-session.js';
import { resolveStrategies } from '../../runtime/compose/resolve-strategies.js';
import { STOPPING_DENIAL } from '../../runtime/handle/stopping-denial.js';
import type { AdmissionRefusal } from '../../engine/logs/control-mark.js';
import { createDrawdownTracker, type DrawdownResult } from '../report/drawdown.js';
import { PriceSeries } from '../report/price-series.js';
import { decisionLogSha256, decisionLogText } from './decision-log-out.js';

export interface BacktestProgress {
  readonly lines: number;
  readonly totalLines: number;
  /** Simulated time reached, and the window's end. */
  readonly at: number;
  readonly endAt: number;
  readonly linesPerSec: number;
}

/** What a report says of the recording a backtest read (a prepared recording is one). */
export interface RecordingInfo {
  readonly files: readonly { readonly path: string; readonly sha256: string; readonly header: RecordingHeader }[];
  readonly badLines: number;
  readonly firstBad: string | undefined;
  readonly recordedRooms: ReadonlySet<string>;
}

export interface BacktestOptions {
  readonly loaded: LoadedDeployment;
  /**
   * The recording: prepared (`loadRecording`, `openPrepared`), streamed from its files
   * (`openRecordingStream`: nothing held but a chunk), or parsed lines (`readRecording`, prepared here first).
   */
  readonly recording: Recording | StreamedRecording | ParsedRecording;
  /** Only replay lines at or after / at or before these run-clock times. */
  readonly fromMs?: number;
  readonly toMs?: number;
  /** Engine seed (default: the recording header's, else the deployment's simulator seed, else 1). */
  readonly seed?: number;
  readonly dataMiss?: DataMissFallback;
  /** Equity and price sampling interval on the run clock (default 60 s). */
  readonly sampleMs?: number;
  readonly log?: Logger;
  readonly onProgress?: (p: BacktestProgress) => void;
  /** Strategies already resolved (sweeps resolve once per cell); default: resolved from `loaded`. */
  readonly strategies?: readonly StrategyInstance[];
  /**
   * Run-clock ms from a strategy's join of a room nobody held to the room's first frame it gets (a
   * live join's round trip). Default: `DOWNLOAD_JOIN_LATENCY_MS` for a download (which holds every
   * frame of its rooms), 0 for a recording of a run (its frames begin where the live join took effect).
   */
  readonly joinLatencyMs?: number;
}

/** A download's default join latency (docs/backtesting.md, "Joins on a download"). */
export const DOWNLOAD_JOIN_LATENCY_MS = 200;

/** The join latency a replay of a recording with this header models (see `BacktestOptions.joinLatencyMs`). */
export function joinLatencyOf(header: { readonly origin?: string } | undefined, given: number | undefined): number {
  return given ?? (header?.origin === 'download' ? DOWNLOAD_JOIN_LATENCY_MS : 0);
}

export interface BacktestResult {
  readonly deployment: Deployment;
  readonly seed: number;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly decisions: readonly DecisionEntry[];
  /** The decision log exactly as a paper run writes it (made when first read: a backtest's job writes it from `decisions` in batches). */
  readonly decisionLog: string;
  /** sha256 of `decisionLog` (worked out a batch of lines at a time when first read, without making the log). */
  readonly decisionLogSha256: string;
  /** Equity samples: run-clock time and equity in lamports, at `sampleMs` and at the end. */
  readonly equity: readonly (readonly [number, bigint])[];
  /** Drawdown over the equity at every fill and every price change of an open position (not the samples). */
  readonly drawdown: DrawdownResult;
  /** Price samples of every token with a decision (the report charts the most traded). */
  readonly prices: ReadonlyMap<string, PriceSeries>;
  readonly summary: RunSummary;
  readonly feed: ReplayFeedStats;
  readonly data: { readonly exact: number; readonly misses: number; readonly fallbackAnswers: number };
  readonly denialsByCode: Readonly<Record<string, number>>;
  readonly lines: number;
  /** The recording as the report describes it (a streamed one's counts are known only after the run). */
  readonly recording: RecordingInfo;
  readonly wallMs: number;
  /** Positions still open at the end, marked at the last observed price. */
  readonly openPositions: readonly { readonly strategyId: string; readonly mint: string; readonly valueLamports: bigint | undefined }[];
}

/** Prices of traded tokens are sampled this often (run clock) while they are active. */
const PRICE_SAMPLE_MS = 5_000;
const ACTIVE_MS = 10 * 60_000;

const isAsyncFn = (f: unknown): boolean => typeof f === 'function' && f.constructor.name === 'AsyncFunction';

const yieldTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** The recording's lines for one replay, what it says up front, and what it says only once read. */
interface Source {
  readonly cursor: LineCursor;
  readonly bounds: ReplayBounds;
  readonly header: RecordingHeader | undefined;
  readonly dataLines: Parameters<typeof createReplayData>[0];
  readonly dedupCapacity: number;
  readonly recordedRooms: ReadonlySet<string>;
  /** Reads what is left (a streamed recording) and describes the recording. */
  finish(): Promise<{ readonly info: RecordingInfo; readonly lines: number }>;
}

function sourceOf(r: Recording | StreamedRecording | ParsedRecording): Source {
  if ('cursor' in r) {
    const cursor = r.cursor();
    return {
      cursor,
      bounds: r.bounds,
      header: r.files[0]?.header,
      dataLines: r.dataLines,
      dedupCapacity: REPLAY_DEDUP_CAPACITY,
      recordedRooms: cursor.recordedRooms,
      async finish() {
        await cursor.finish();
        const files = r.files.map((f) => ({ path: f.path, sha256: f.sha256, header: f.header }));
        return { info: { files, badLines: cursor.badLines, firstBad: cursor.firstBad, recordedRooms: cursor.recordedRooms }, lines: cursor.lines };
      },
    };
  }
  const p = 'lines' in r ? preparedFromParsed(r) : r;
  return {
    cursor: preparedCursor(p),
    bounds: preparedBounds(p),
    header: p.files[0]?.header,
    dataLines: p.dataLines,
    // a window at least as large as the rows never evicts: it dedups as the default one does, in less memory
    dedupCapacity: Math.max(1, Math.min(REPLAY_DEDUP_CAPACITY, p.meta.rows)),
    recordedRooms: p.recordedRooms,
    finish: () => Promise.resolve({ info: p, lines: p.lineCount }),
  };
}

/**
 * The report's samples on the run clock: equity every `sampleMs`, and every `PRICE_SAMPLE_MS` the
 * price of each token with a decision in the last `ACTIVE_MS` (or a position still open).
 * `advance(t)` moves the clock to `t`, taking every sample due on the way.
 */
function createSamplers(o: {
  readonly clock: ManualClock;
  readonly engine: PaperSession['engine'];
  readonly decisions: readonly DecisionEntry[];
  readonly startAt: number;
  readonly sampleMs: number;
}): { readonly advance: (t: number) => void; readonly equity: [number, bigint][]; readonly prices: Map<string, PriceSeries> } {
  const { clock, engine, decisions, startAt, sampleMs } = o;
  const priceSampleMs = Math.min(sampleMs, PRICE_SAMPLE_MS);
  const equity: [number, bigint][] = [];
  const prices = new Map<string, PriceSeries>();
  /** Mints with a decision in the last ACTIVE_MS (the time of their last one): their prices are sampled at `priceSampleMs`. */
  const active = new Map<string, { lastAt: number; readonly series: PriceSeries }>();
  let seenDecisions = 0;
  let nextSample = startAt;
  let nextPriceSample = startAt;
  let sampleAt = 0;
  const sampleOne = (a: { lastAt: number; readonly series: PriceSeries }, mint: string): void => {
    if (sampleAt - a.lastAt > ACTIVE_MS && engine.portfolio.openOn(mint).length === 0) {
      active.delete(mint);
      return;
    }
    const p = engine.market.get(mint)?.price;
    if (p !== undefined) a.series.push(sampleAt, p);
  };
  const samplePrices = (at: number): void => {
    for (; seenDecisions < decisions.length; seenDecisions++) {
      const e = decisions[seenDecisions]!;
      if (e.kind === 'unfilled' || e.kind === 'manual') continue;
      const a = active.get(e.mint);
      if (a !== undefined) a.lastAt = e.at;
      else {
        let series = prices.get(e.mint);
        if (series === undefined) prices.set(e.mint, (series = new PriceSeries()));
        active.set(e.mint, { lastAt: e.at, series });
      }
    }
    sampleAt = at;
    // each token's samples are its own: the order they are visited in changes nothing
    active.forEach(sampleOne);
  };
  const advance = (t: number): void => {
    for (;;) {
      const next = Math.min(nextSample, nextPriceSample);
      if (next > t) break;
      if (next > clock.now()) clock.advanceTo(next as UnixMs);
      if (next === nextPriceSample) {
        samplePrices(next);
        nextPriceSample += priceSampleMs;
      }
      if (next === nextSample) {
        equity.push([next, engine.portfolio.totals().equityLamports]);
        nextSample += sampleMs;
      }
    }
    if (t > clock.now()) clock.advanceTo(t as UnixMs);
  };

  return { advance, equity, prices };
}

/** Runs `loaded`'s deployment over `recording` and returns what it decided. */
export async function runBacktest(o: BacktestOptions): Promise<BacktestResult> {
  const wall0 = performance.now();
  const src = sourceOf(o.recording);
  const { cursor, bounds, header } = src;
  const d0 = o.loaded.deployment;
  // The backtest collects its own decision log: never overwrite the paper run's file.
  const deployment: Deployment = { ...d0, telemetry: { ...d0.telemetry, decisionLog: undefined } };
  const strategies = o.strategies ?? (await resolveStrategies({ ...o.loaded, deployment }));
  const seed = o.seed ?? header?.seed ?? d0.endpoints.simulator?.seed ?? 1;
  const from = o.fromMs ?? -Infinity;
  const to = o.toMs ?? Infinity;
  const recordedStart = bounds.startT ?? header?.startedAt ?? 0;
  const startAt = Math.max(recordedStart, Number.isFinite(from) ? from : recordedStart);
  // A run with a drain ends where its drain ended (what was still in flight then expired), else at its end line.
  // It ends at that line, not at its millisecond: what was recorded after it in the same millisecond reached a stopped engine.
  const endIndex = bounds.endIndex;
  const endAt = Math.min(to, bounds.endT ?? bounds.lastT ?? startAt);
  /** Set at the recording's stop mark: from there every new intent is refused as the run refused it. */
  let stopping = false;
  /** What the recorded run refused each side with, from its control marks (pauses, feed pauses, halts). */
  let refused: { buy: AdmissionRefusal | null; sell: AdmissionRefusal | null } = { buy: null, sell: null };

  const clock = manualClock(startAt);
  const joinMs = joinLatencyOf(header, o.joinLatencyMs);
  const feed = createReplayFeed(src.recordedRooms, {
    dedupCapacity: src.dedupCapacity,
    ...(joinMs > 0 ? { joinLatency: { ms: joinMs, now: () => clock.now() } } : {}),
  });
  const data = createReplayData(src.dataLines, clock, o.dataMiss ?? 'latest');
  const decisions: DecisionEntry[] = [];
  const log = o.log ?? silentLogger();
  const session = createPaperSession({
    deployment,
    strategies,
    feed,
    clock,
    random: seededRandom(seed),
    seed,
    log,
    data: data.port,
    decisions: (e) => decisions.push(e),
    admission: (side) => (stopping ? STOPPING_DENIAL : ((side === 'buy' ? refused.buy : refused.sell) ?? undefined)),
  });
  const engine = session.engine;
  // Events the prepared form holds already normalised reach the engine as its own handler would hand them on.
  feed.attach({
    event(ev) {
      engine.stats.frameSeen();
      engine.dispatch(ev);
    },
    badFrame(room, err) {
      engine.stats.frameSeen();
      engine.stats.badFrame(room, err);
      log.warn({ room, err: err.message }, 'bad frame skipped');
    },
  });
  const asyncHandlers = strategies.some((s) => Object.values(s.definition).some(isAsyncFn));

  const { advance, equity, prices } = createSamplers({ clock, engine, decisions, startAt, sampleMs: o.sampleMs ?? 60_000 });

  await session.start();
  const dd = createDrawdownTracker(startAt, session.engine.portfolio.totals().equityLamports);
  /** Equity moves only with a decision's outcome or, while a position is open, with a price: look then. */
  let ddDecisions = 0;
  let ddOpen = false;
  const watchEquity = (): void => {
    if (!ddOpen && decisions.length === ddDecisions) return;
    ddDecisions = decisions.length;
    const book = session.engine.portfolio;
    ddOpen = book.openCount() > 0;
    dd.observe(clock.now(), book.equityLamports());
  };
  let done = 0;
  const totalLines = bounds.totalLines ?? 0;
  let lastProgress = performance.now();
  let dataActivity = false;
  for (;;) {
    if (!cursor.next()) {
      if (await cursor.refill()) continue;
      break;
    }
    done++;
    const kind = cursor.kind;
    const t = cursor.t;
    if (t < startAt || kind === K.START || kind === K.CONN) continue;
    if (t > endAt || cursor.index === endIndex) break;
    advance(t);
    watchEquity();
    switch (kind) {
      case K.PRICE:
      case K.EVENT:
      case K.ROWS:
      case K.RAW:
      case K.TEXT:
        cursor.deliver(feed);
        break;
      case K.GAP: {
        const g = cursor.gap();
        feed.gap({ startedAt: g.startedAt as UnixMs, endedAt: g.endedAt as UnixMs, rooms: g.rooms });
        break;
      }
      case K.DATA:
        data.reached(cursor.data());
        dataActivity = true;
        break;
      case K.STOP:
        stopping = true;
        break;
      case K.CONTROL: {
        // What the run admitted changed here (an operator's pause, a pause for the feed, a halt, the kill switch): so does the backtest's.
        const mark = cursor.control();
        if (mark.kind === 'entries') refused = { buy: mark.buy, sell: mark.sell };
        else if (mark.on) session.engine.kill(mark.reason ?? 'no reason given');
        else session.engine.unkill();
        break;
      }
      case K.MANUAL: {
        // The operator's action, at the instant it was taken: the same journal line, gate and intents.
        const m = manualActionOf(cursor.manual());
        session.engine.manual(m.action, m.meta);
        break;
      }
      default:
    }
    // Asynchronous handlers (and look-ups answered just now) finish before the next line, as they did between frames.
    if (asyncHandlers || dataActivity) {
      dataActivity = false;
      await yieldTurn();
    }
    watchEquity();
    if ((done & 0x3ff) === 0) {
      const now = performance.now();
      if (now - lastProgress > 200) {
        lastProgress = now;
        o.onProgress?.({ lines: done, totalLines, at: clock.now(), endAt, linesPerSec: done / ((now - wall0) / 1000) });
        await yieldTurn();
      }
    }
  }
  advance(endAt);
  watchEquity();
  await session.stop();
  equity.push([clock.now(), session.engine.portfolio.totals().equityLamports]);
  dd.observe(clock.now(), session.engine.portfolio.totals().equityLamports);
  const summary = session.engine.stats.summary();
  const { info, lines } = await src.finish();
  let logText: string | undefined;
  let logSha: string | undefined;
  o.onProgress?.({ lines, totalLines: lines, at: clock.now(), endAt, linesPerSec: lines / ((performance.now() - wall0) / 1000) });
  return {
    deployment,
    seed,
    startedAt: startAt,
    endedAt: clock.now(),
    decisions,
    get decisionLog() {
      return (logText ??= decisionLogText(decisions));
    },
    get decisionLogSha256() {
      return (logSha ??= decisionLogSha256(decisions));
    },
    equity,
    drawdown: dd.result(clock.now()),
    prices,
    summary,
    feed: feed.stats(),
    data: data.stats(),
    denialsByCode: Object.fromEntries(session.engine.stats.denialsByCode),
    lines,
    recording: info,
    wallMs: performance.now() - wall0,
    openPositions: session.engine.portfolio.open().map((p) => ({ strategyId: p.strategyId, mint: p.mint, valueLamports: session.engine.portfolio.valueOf(p) })),
  };
}
