/**
 * Counters and bounded recent lists for the status panel and the run summary: events, bad frames,
 * denials by code, fills, strategy errors, round trips, equity peak and maximum drawdown.
 */
import { describeError, type Clock, type UnixMs } from '../../core/index.js';
import type { Fill } from '../orders/execution-port.js';
import type { Portfolio, Position } from '../market/portfolio.js';

const RECENT = 20;
/** Equity is sampled for the drawdown at most this often on price ticks (clock time). */
const EQUITY_SAMPLE_MS = 1_000;

export interface RecentDenial {
  readonly at: UnixMs;
  readonly strategyId: string;
  readonly mint: string;
  readonly code: string;
  readonly reason: string;
}
export interface RecentFill {
  readonly at: UnixMs;
  readonly strategyId: string;
  readonly fill: Fill;
}
export interface RecentProblem {
  readonly at: UnixMs;
  readonly where: string;
  readonly error: string;
}

export interface RunSummary {
  readonly startedAt: UnixMs | undefined;
  readonly endedAt: UnixMs;
  readonly events: number;
  readonly frames: number;
  readonly badFrames: number;
  readonly intents: number;
  readonly fills: number;
  readonly denials: number;
  /** Intents the executor refused before sending anything (live rails such as LIVE_SPEND_CAP_DAY, a failed inspection). */
  readonly rejections: number;
  /** Every refusal by its code: the engine's denials and the executor's rejections together. */
  readonly refusalsByCode: Readonly<Record<string, number>>;
  /** Closed round trips (a position opened and sold to zero). */
  readonly trades: number;
  readonly wins: number;
  readonly winRate: number;
  readonly realisedLamports: bigint;
  readonly unrealisedLamports: bigint;
  readonly feesLamports: bigint;
  readonly equityLamports: bigint;
  readonly maxDrawdownLamports: bigint;
  readonly openPositions: number;
  readonly strategyErrors: number;
  /** Tokens a strategy stopped getting events of because they kept throwing (strategy-runner.ts). */
  readonly tokensQuarantined: number;
}

export interface EngineStats {
  frameSeen(): void;
  eventSeen(): void;
  badFrame(room: string, error: unknown): void;
  denied(d: RecentDenial): void;
  /** The executor refused an intent before sending it (a `rejected` report), with its code. */
  rejected(code: string): void;
  intentPlaced(): void;
  /** A submit whose outcome is unknown: the intent stays in flight. */
  submitUnknown(): void;
  /** A report for an intent the engine does not hold (logged, reconciled when it can be). */
  unknownReport(): void;
  readonly submitsUnknown: number;
  readonly unknownReports: number;
  filled(strategyId: string, fill: Fill, after: Position, realisedBefore: bigint | undefined): void;
  strategyError(strategyId: string, where: string, error: unknown): void;
  /** Strategy `strategyId` quarantined `mint` (its handlers threw for that token too often). */
  tokenQuarantined(strategyId: string, mint: string): void;
  started(): void;
  /** Samples equity for the drawdown: always on fills, at most once per `equitySampleMs` on price ticks. */
  markEquity(force?: boolean): void;
  readonly events: number;
  readonly frames: number;
  readonly badFrames: number;
  readonly denialsByCode: ReadonlyMap<string, number>;
  readonly rejectionsByCode: ReadonlyMap<string, number>;
  readonly recentDenials: readonly RecentDenial[];
  readonly recentFills: readonly RecentFill[];
  readonly recentBadFrames: readonly RecentProblem[];
  readonly recentErrors: readonly RecentProblem[];
  errorsOf(strategyId: string): number;
  summary(): RunSummary;
}

function pushBounded<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > RECENT) list.shift();
}

export function createEngineStats(clock: Clock, portfolio: Portfolio): EngineStats {
  let events = 0;
  let frames = 0;
  let badFrames = 0;
  let intents = 0;
  let submitsUnknown = 0;
  let unknownReports = 0;
  let fills = 0;
  let denials = 0;
  let trades = 0;
  let wins = 0;
  let startedAt: UnixMs | undefined;
  let peak: bigint | undefined;
  let maxDrawdown = 0n;
  let sampledAt = -Infinity;
  const denialsByCode = new Map<string, number>();
  const rejectionsByCode = new Map<string, number>();
  let rejections = 0;
  const errors = new Map<string, number>();
  let quarantines = 0;
  const recentDenials: RecentDenial[] = [];
  const recentFills: RecentFill[] = [];
  const recentBadFrames: RecentProblem[] = [];
  const recentErrors: RecentProblem[] = [];

  const stats: EngineStats = {
    frameSeen: () => {
      frames++;
    },
    eventSeen: () => {
      events++;
    },
    badFrame(room, error) {
      badFrames++;
      pushBounded(recentBadFrames, { at: clock.now(), where: room, error: describeError(error) });
    },
    denied(d) {
      denials++;
      denialsByCode.set(d.code, (denialsByCode.get(d.code) ?? 0) + 1);
      pushBounded(recentDenials, d);
    },
    rejected(code) {
      rejections++;
      rejectionsByCode.set(code, (rejectionsByCode.get(code) ?? 0) + 1);
    },
    intentPlaced: () => {
      intents++;
    },
    submitUnknown: () => {
      submitsUnknown++;
    },
    unknownReport: () => {
      unknownReports++;
    },
    get submitsUnknown() {
      return submitsUnknown;
    },
    get unknownReports() {
      return unknownReports;
    },
    filled(strategyId, fill, after, realisedBefore) {
      fills++;
      pushBounded(recentFills, { at: fill.filledAt, strategyId, fill });
      if (fill.side === 'sell' && after.tokenRaw === 0n && realisedBefore !== undefined) {
        trades++;
        if (after.realisedLamports - realisedBefore > 0n) wins++;
      }
      stats.markEquity(true);
    },
    strategyError(strategyId, where, error) {
      errors.set(strategyId, (errors.get(strategyId) ?? 0) + 1);
      pushBounded(recentErrors, { at: clock.now(), where: `${strategyId}.${where}`, error: describeError(error) });
    },
    tokenQuarantined(strategyId, mint) {
      quarantines++;
      pushBounded(recentErrors, { at: clock.now(), where: `${strategyId}.quarantine`, error: `token ${mint} quarantined` });
    },
    started() {
      startedAt = clock.now();
      stats.markEquity(true);
    },
    markEquity(force = false) {
      const now = clock.now();
      if (!force && now - sampledAt < EQUITY_SAMPLE_MS) return;
      sampledAt = now;
      const eq = portfolio.equityLamports();
      if (peak === undefined || eq > peak) peak = eq;
      else {
        const dd = peak - eq;
        if (dd > maxDrawdown) maxDrawdown = dd;
      }
    },
    get events() {
      return events;
    },
    get frames() {
      return frames;
    },
    get badFrames() {
      return badFrames;
    },
    denialsByCode,
    rejectionsByCode,
    recentDenials,
    recentFills,
    recentBadFrames,
    recentErrors,
    errorsOf: (id) => errors.get(id) ?? 0,
    summary() {
      const t = portfolio.totals();
      let strategyErrors = 0;
      for (const n of errors.values()) strategyErrors += n;
      return {
        startedAt,
        endedAt: clock.now(),
        events,
        frames,
        badFrames,
        intents,
        fills,
        denials,
        rejections,
        refusalsByCode: refusalsByCode(denialsByCode, rejectionsByCode),
        trades,
        wins,
        winRate: trades === 0 ? 0 : wins / trades,
        realisedLamports: t.realisedLamports,
        unrealisedLamports: t.unrealisedLamports,
        feesLamports: t.feesLamports,
        equityLamports: t.equityLamports,
        maxDrawdownLamports: maxDrawdown,
        openPositions: t.openPositions,
        strategyErrors,
        tokensQuarantined: quarantines,
      };
    },
  };
  return stats;
}

/** Denials and rejections merged by code, largest count first. */
function refusalsByCode(...maps: ReadonlyMap<string, number>[]): Record<string, number> {
  const all = new Map<string, number>();
  for (const m of maps) for (const [code, n] of m) all.set(code, (all.get(code) ?? 0) + n);
  return Object.fromEntries([...all].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
}
