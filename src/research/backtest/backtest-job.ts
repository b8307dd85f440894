/**
 * `chainpilot backtest`: reads the recording once, runs the backtest, writes `decisions.jsonl`,
 * `report.json` and `report.html` to the output directory, and with `verifyAgainst` compares the
 * decision log with another one (a paper or live run's) line by line.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ChainpilotError, createRedactor, type Logger } from '../../core/index.js';
import { effectiveConfigYaml, picksByName, type Deployment, type LoadedDeployment, type SetOverride } from '../../config/index.js';
import { strategyIdsOf } from '../../runtime/compose/resolve-strategies.js';
import { loadDeploymentFully } from '../../runtime/compose/check-deployment.js';
import { computeReport } from '../report/compute-report.js';
import { renderReportHtml } from '../report/render-html.js';
import type { BacktestReport } from '../report/report-types.js';
import { prepareRecording, readRecordingPrepared, type PreparedRecording } from '../replay/prepared-cache.js';
import type { Recording } from '../replay/prepared-recording.js';
import { openRecordingStream } from '../replay/recording-stream.js';
import { writeDecisionLog } from './decision-log-out.js';
import type { DataMissFallback } from '../replay/replay-data.js';
import { chainpilotVersion } from '../record/version.js';
import { runBacktest, type BacktestProgress, type BacktestResult, type RecordingInfo } from './run-backtest.js';
import { silentRoomsOf } from './silent-rooms-of.js';
import { pairFills, type LiveVsBacktest } from './pair-fills.js';

export interface BacktestJobOptions {
  readonly file: string;
  readonly data: string | readonly string[];
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly outDir: string;
  readonly seed?: number;
  readonly dataMiss?: DataMissFallback;
  readonly sampleMs?: number;
  readonly minRatioSpanMs?: number;
  readonly verifyAgainst?: string;
  /** `BacktestOptions.joinLatencyMs` (default by the recording's origin). */
  readonly joinLatencyMs?: number;
  /** Use the recording's prepared cache, building it on first use (default true). */
  readonly cache?: boolean;
  /** Directory of prepared caches (default: `.chainpilot-cache` next to the recording). */
  readonly cacheDir?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `--set PATH=VALUE` overrides of the deployment file. */
  readonly set?: readonly SetOverride[];
  readonly log?: Logger;
  readonly onProgress?: (p: BacktestProgress) => void;
}

/** The first line where two decision logs differ. */
export interface Divergence {
  /** 1-based line number. */
  readonly line: number;
  readonly expected: string | undefined;
  readonly actual: string | undefined;
}

export interface FillDrift {
  /** Fills of the same intent id in both logs. */
  readonly matched: number;
  readonly meanBps: number;
  readonly maxAbsBps: number;
}

export interface BacktestJobResult {
  readonly report: BacktestReport;
  readonly result: BacktestResult;
  readonly files: { readonly report: string; readonly html: string; readonly decisions: string };
  readonly divergence: Divergence | undefined;
  readonly drift: FillDrift | undefined;
  /** With `verifyAgainst`: every intent of that log paired with the backtest's, and the drift (also in report.json). */
  readonly liveVsBacktest: LiveVsBacktest | undefined;
  /** How the recording was read: its prepared cache (and what became of it), or `off`. */
  readonly cache: PreparedRecording['cache'] | { readonly status: 'off' };
}

/**
 * Reads the recording of a backtest or sweep once, in its prepared form: through its prepared cache
 * unless `cache` is false (then prepared in memory, nothing written; a cache that does not check is
 * rebuilt, see src/research/replay/prepared-cache.ts). With `shared` the prepared bytes are in a
 * SharedArrayBuffer (`recording.bytes`), for worker threads to open as they are (`openPrepared`).
 */
export function loadRecording(
  data: string | readonly string[],
  cache = true,
  cacheDir?: string,
  opts: { readonly shared?: boolean } = {},
): { readonly recording: Recording; readonly cache: BacktestJobResult['cache'] } {
  if (!cache) return { recording: prepareRecording(data, opts.shared ?? false), cache: { status: 'off' } };
  return readRecordingPrepared(data, {
    version: chainpilotVersion(),
    ...(cacheDir !== undefined ? { dir: cacheDir } : {}),
    ...(opts.shared ? { shared: true } : {}),
  });
}

const sha256 = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');

/** The deployment as the fingerprint sees it: the effective config, secrets redacted, telemetry (paths, log level) left out. */
export function deploymentIdentity(d: Deployment): string {
  return effectiveConfigYaml({ ...d, telemetry: { logLevel: 'info', statusInterval: 0, decisionLog: undefined } });
}

/** sha256 over the recordings' hashes, the deployment, the chainpilot version and the decision log's sha256. */
export function runFingerprint(recording: Pick<RecordingInfo, 'files'>, d: Deployment, decisionLogSha256: string): string {
  return sha256(
    JSON.stringify({
      recordings: recording.files.map((f) => f.sha256),
      deployment: deploymentIdentity(d),
      chainpilot: chainpilotVersion(),
      decisions: decisionLogSha256,
    }),
  );
}

/**
 * Compares two decision logs line by line; undefined when they are equal. Intent ids of `expected`
 * are compared without a run prefix (a live run's or a resumed book's), as the backtest draws them.
 */
export function firstDivergence(expected: string, actual: string): Divergence | undefined {
  const a = expected.replace(/"intentId":"int_(?:[0-9a-f]{8}|r\d+)_/g, '"intentId":"int_').split('\n');
  const b = actual.split('\n');
  if (a[a.length - 1] === '') a.pop();
  if (b[b.length - 1] === '') b.pop();
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return { line: i + 1, expected: a[i], actual: b[i] };
  }
  return undefined;
}

/** Per-trade drift between a reference log's fills (a live run's) and the backtest's, by intent id. */
/** The run prefix a live run (`int_1a2b3c4d_`) or a resumed paper book (`int_r2_`) puts before the id a backtest draws. */
const RUN_PREFIX = /^int_(?:[0-9a-f]{8}|r\d+)_/;

export function fillDrift(expected: string, actual: string): FillDrift {
  const fills = (text: string): Map<string, number> => {
    const m = new Map<string, number>();
    for (const line of text.split('\n')) {
      if (!line.includes('"kind":"fill"')) continue;
      const e = JSON.parse(line) as { intentId: string; price: string };
      m.set(e.intentId.replace(RUN_PREFIX, 'int_'), Number(e.price));
    }
    return m;
  };
  const a = fills(expected);
  const b = fills(actual);
  let matched = 0;
  let sum = 0;
  let maxAbs = 0;
  for (const [id, pa] of a) {
    const pb = b.get(id);
    if (pb === undefined || pb === 0) continue;
    const bps = (pa / pb - 1) * 10_000;
    matched++;
    sum += bps;
    maxAbs = Math.max(maxAbs, Math.abs(bps));
  }
  return { matched, meanBps: matched ? sum / matched : 0, maxAbsBps: maxAbs };
}

/** Builds the report of a finished backtest. */
export function reportOf(
  result: BacktestResult,
  recording: RecordingInfo,
  loaded: LoadedDeployment,
  sampleMs: number,
  minRatioSpanMs?: number,
  decisionLogSha256: string = result.decisionLogSha256,
): BacktestReport {
  const d = result.deployment;
  return computeReport({
    decisions: result.decisions,
    equity: result.equity,
    drawdown: result.drawdown,
    prices: result.prices,
    openPositions: result.openPositions,
    startingLamports: d.paper.startingBalanceLamports,
    startedAt: result.startedAt,
    endedAt: result.endedAt,
    sampleMs,
    ...(minRatioSpanMs !== undefined ? { minRatioSpanMs } : {}),
    fingerprint: runFingerprint(recording, loaded.deployment, decisionLogSha256),
    run: {
      deployment: d.name,
      strategies: d.strategies.filter((s) => s.enabled).map((s) => ({ id: s.id ?? s.use, use: s.use, params: s.params })),
      recordings: recording.files.map((f) => ({ file: basename(f.path), sha256: f.sha256 })),
      chainpilot: chainpilotVersion(),
      seed: result.seed,
      from: result.startedAt,
      to: result.endedAt,
      lines: result.lines,
      wallMs: Math.round(result.wallMs),
      sampleMs,
      dataLookups: result.data,
      feed: {
        frames: result.feed.frames,
        messages: result.feed.messages,
        unrouted: result.feed.unrouted,
        parseFailures: result.feed.parseFailures,
        invalidPayloads: result.feed.invalidPayloads,
        duplicates: result.feed.duplicates,
        badLines: recording.badLines,
        silentRooms: result.feed.silentRooms.length,
      },
      decisionLogSha256,
      silentRooms: silentRoomsOf(result.feed.silentRooms, recording),
    },
  });
}

export async function runBacktestJob(o: BacktestJobOptions): Promise<BacktestJobResult> {
  const redactor = createRedactor();
  const set = o.set ?? [];
  const strategyIds = picksByName(set.map((s) => s.path)) ? await strategyIdsOf(o.file) : undefined;
  const loaded = await loadDeploymentFully(o.file, { set, ...(strategyIds ? { strategyIds } : {}), ...(o.env ? { env: o.env } : {}) });
  for (const s of loaded.secrets) redactor.add(s);
  if (o.fromMs !== undefined && o.toMs !== undefined && o.toMs <= o.fromMs) {
    throw new ChainpilotError('BACKTEST_INVALID_OPTION', '--to must be later than --from', { retry: 'not_retryable', context: { field: 'to' } });
  }
  let expected: string | undefined;
  if (o.verifyAgainst) {
    try {
      expected = readFileSync(o.verifyAgainst, 'utf8');
    } catch (e) {
      throw new ChainpilotError(
        'BACKTEST_INVALID_OPTION',
        `--verify-against ${o.verifyAgainst}: cannot read it (${(e as NodeJS.ErrnoException).code ?? 'error'}); give a decision log (telemetry.decisionLog of the run)`,
        { retry: 'not_retryable', context: { field: 'verify-against' } },
      );
    }
  }
  // With the cache: its prepared form (built first if need be). Without: the files streamed through the engine, nothing kept.
  const prepared = o.cache === false ? undefined : loadRecording(o.data, true, o.cacheDir);
  const cache: BacktestJobResult['cache'] = prepared ? prepared.cache : { status: 'off' };
  const sampleMs = o.sampleMs ?? 60_000;
  const result = await runBacktest({
    loaded,
    recording: prepared ? prepared.recording : await openRecordingStream(o.data),
    sampleMs,
    ...(o.fromMs !== undefined ? { fromMs: o.fromMs } : {}),
    ...(o.toMs !== undefined ? { toMs: o.toMs } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.dataMiss ? { dataMiss: o.dataMiss } : {}),
    ...(o.joinLatencyMs !== undefined ? { joinLatencyMs: o.joinLatencyMs } : {}),
    ...(o.log ? { log: o.log } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
  });
  const liveVsBacktest = expected === undefined ? undefined : pairFills(expected, result.decisionLog);
  mkdirSync(o.outDir, { recursive: true });
  const files = { report: join(o.outDir, 'report.json'), html: join(o.outDir, 'report.html'), decisions: join(o.outDir, 'decisions.jsonl') };
  // the log is written a batch of lines at a time, hashed as it goes (the report needs its sha256)
  const logSha256 = writeDecisionLog(result.decisions, files.decisions);
  const base = reportOf(result, result.recording, loaded, sampleMs, o.minRatioSpanMs, logSha256);
  const report = redactor.redactValue(liveVsBacktest ? { ...base, liveVsBacktest } : base);
  writeFileSync(files.report, `${JSON.stringify(report, null, 1)}\n`);
  writeFileSync(files.html, renderReportHtml(report));
  const divergence = expected === undefined ? undefined : firstDivergence(expected, result.decisionLog);
  const drift = expected === undefined ? undefined : fillDrift(expected, result.decisionLog);
  return { report, result, files, divergence, drift, liveVsBacktest, cache };
}
