/**
 * The report's breakdowns (report.json `extras`): per token, exit reasons grouped by rule, per day,
 * week and month, trade durations of winners and losers, win and loss streaks, exposure over time,
 * and the per-hour return distribution that means something for runs too short for annualised
 * ratios. Computed from the report's own trade rows and equity samples; sums of SOL are exact.
 */
import { decimal } from '../../core/index.js';
import type { ReportTrade } from './report-types.js';
import { hourlyReturns, type HourlyReturns } from './short-run-metrics.js';

export interface GroupRow {
  readonly key: string;
  readonly trades: number;
  readonly wins: number;
  readonly pnlSol: string;
}

export interface ReportExtras {
  /**
   * Per token: trades (open ones included), wins among closed, PnL, fees, time held; by PnL, best
   * first. Over 16 tokens: the 8 best, the 8 worst, and one row for the rest.
   */
  readonly byToken: readonly TokenRow[];
  /** Closed trades by the rule of their last exit: `take profit level N`, `stop loss`, `trailing stop`, `time stop`, `safety exit`, `manual`, `strategy`. */
  readonly byExitRule: readonly GroupRow[];
  /** Closed trades by the UTC day, ISO week (Monday) and month they closed in. */
  readonly byPeriod: { readonly day: readonly GroupRow[]; readonly week: readonly GroupRow[]; readonly month: readonly GroupRow[] };
  /** Time held by closed trades, winners and losers apart (ms). */
  readonly durations: {
    readonly winners: DurationStats;
    readonly losers: DurationStats;
  };
  /** Longest runs of consecutive winning and losing closed trades, in closing order. */
  readonly streaks: { readonly longestWin: number; readonly longestLoss: number };
  /** `[at, open trades, SOL at cost in open trades]` at equity samples (at most 100: every k-th sample, and the last). */
  readonly exposure: readonly (readonly [number, number, number])[];
  /** Per-hour equity returns (see short-run-metrics.ts). */
  readonly hourly: HourlyReturns;
}

/** `key` is the mint, or `N other tokens` for the row that sums the middle of a long table. */
export type TokenRow = GroupRow & { readonly feesSol: string; readonly holdMs: number };

/** Rows kept at each end of the per-token table (the report of a day stays small). */
const TOKEN_ENDS = 8;

function capTokens(rows: readonly TokenRow[]): TokenRow[] {
  if (rows.length <= 2 * TOKEN_ENDS) return [...rows];
  const middle = rows.slice(TOKEN_ENDS, rows.length - TOKEN_ENDS);
  const sum = (f: (r: TokenRow) => string): string => middle.reduce((a, r) => a.plus(f(r)), decimal(0)).toFixed();
  const rest: TokenRow = {
    key: `${middle.length} other tokens`,
    trades: middle.reduce((a, r) => a + r.trades, 0),
    wins: middle.reduce((a, r) => a + r.wins, 0),
    pnlSol: sum((r) => r.pnlSol),
    feesSol: sum((r) => r.feesSol),
    holdMs: middle.reduce((a, r) => a + r.holdMs, 0),
  };
  return [...rows.slice(0, TOKEN_ENDS), rest, ...rows.slice(rows.length - TOKEN_ENDS)];
}

export interface DurationStats {
  readonly count: number;
  readonly meanMs: number | null;
  readonly medianMs: number | null;
  readonly maxMs: number | null;
}

/** The rule an exit reason came from (the exit manager's reasons carry prices; their rule does not). */
export function exitRuleOf(reason: string): string {
  const tp = /^take profit .*\(level (\d+)\)/.exec(reason);
  if (tp) return `take profit level ${tp[1] ?? ''}`;
  if (reason.startsWith('stop loss')) return 'stop loss';
  if (reason.startsWith('trailing stop')) return 'trailing stop';
  if (reason.startsWith('time stop')) return 'time stop';
  if (reason.startsWith('safety exit')) return 'safety exit';
  if (/manual|operator|dashboard|shell|chat/i.test(reason)) return 'manual';
  return 'strategy';
}

const DAY_MS = 86_400_000;
const MAX_EXPOSURE_POINTS = 100;
const iso = (t: number): string => new Date(t).toISOString();
const dayOf = (t: number): string => iso(t).slice(0, 10);
const monthOf = (t: number): string => iso(t).slice(0, 7);
/** The Monday (UTC) of `t`'s week, as `week of YYYY-MM-DD`. */
const weekOf = (t: number): string => {
  const d = Math.floor(t / DAY_MS);
  const monday = d - ((new Date(d * DAY_MS).getUTCDay() + 6) % 7);
  return `week of ${dayOf(monday * DAY_MS)}`;
};

function group(trades: readonly ReportTrade[], keyOf: (t: ReportTrade) => string): GroupRow[] {
  const m = new Map<string, { trades: number; wins: number; pnl: ReturnType<typeof decimal> }>();
  for (const t of trades) {
    const k = keyOf(t);
    const g = m.get(k) ?? { trades: 0, wins: 0, pnl: decimal(0) };
    g.trades++;
    if (t.status === 'closed' && decimal(t.pnlSol).gt(0)) g.wins++;
    g.pnl = g.pnl.plus(t.pnlSol);
    m.set(k, g);
  }
  return [...m.entries()].map(([key, g]) => ({ key, trades: g.trades, wins: g.wins, pnlSol: g.pnl.toFixed() }));
}

function durations(ms: readonly number[]): DurationStats {
  const s = [...ms].sort((a, b) => a - b);
  const n = s.length;
  return {
    count: n,
    meanMs: n ? Math.round(s.reduce((a, b) => a + b, 0) / n) : null,
    medianMs: n ? (n % 2 ? s[(n - 1) / 2]! : Math.round((s[n / 2 - 1]! + s[n / 2]!) / 2)) : null,
    maxMs: n ? s[n - 1]! : null,
  };
}

export interface ExtrasInput {
  readonly trades: readonly ReportTrade[];
  readonly equity: readonly (readonly [number, bigint])[];
  readonly startedAt: number;
  readonly endedAt: number;
  readonly sampleMs: number;
}

export function computeReportExtras(i: ExtrasInput): ReportExtras {
  const closed = i.trades.filter((t) => t.status === 'closed' && t.closedAt !== null).sort((a, b) => a.closedAt! - b.closedAt! || a.id - b.id);
  const won = (t: ReportTrade): boolean => decimal(t.pnlSol).gt(0);

  const tokens = new Map<string, { fees: ReturnType<typeof decimal>; holdMs: number }>();
  for (const t of i.trades) {
    const g = tokens.get(t.mint) ?? { fees: decimal(0), holdMs: 0 };
    g.fees = g.fees.plus(t.feesSol);
    g.holdMs += t.holdMs;
    tokens.set(t.mint, g);
  }
  const byToken = capTokens(
    group(i.trades, (t) => t.mint)
      .map((g) => ({ ...g, feesSol: tokens.get(g.key)!.fees.toFixed(), holdMs: tokens.get(g.key)!.holdMs }))
      .sort((a, b) => decimal(b.pnlSol).comparedTo(a.pnlSol) || (a.key < b.key ? -1 : 1)),
  );

  let win = 0;
  let loss = 0;
  let longestWin = 0;
  let longestLoss = 0;
  for (const t of closed) {
    if (won(t)) {
      win++;
      loss = 0;
    } else {
      loss++;
      win = 0;
    }
    longestWin = Math.max(longestWin, win);
    longestLoss = Math.max(longestLoss, loss);
  }

  // Exposure at each equity sample: trades open at that instant and the SOL they cost.
  const spans = i.trades.map((t) => ({ from: t.openedAt, to: t.closedAt ?? Infinity, cost: Number(t.buySol) }));
  const step = Math.max(1, Math.ceil(i.equity.length / MAX_EXPOSURE_POINTS));
  const times = i.equity.filter((_, k) => k % step === 0 || k === i.equity.length - 1).map(([at]) => at);
  const exposure = times.map((at) => {
    let n = 0;
    let cost = 0;
    for (const s of spans)
      if (s.from <= at && at < s.to) {
        n++;
        cost += s.cost;
      }
    return [at, n, Math.round(cost * 1e3) / 1e3] as const;
  });

  const byKey = (rows: GroupRow[]): GroupRow[] => rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    byToken,
    byExitRule: group(closed, (t) => exitRuleOf(t.exitReason)).sort((a, b) => b.trades - a.trades || (a.key < b.key ? -1 : 1)),
    byPeriod: {
      day: byKey(group(closed, (t) => dayOf(t.closedAt!))),
      week: byKey(group(closed, (t) => weekOf(t.closedAt!))),
      month: byKey(group(closed, (t) => monthOf(t.closedAt!))),
    },
    durations: { winners: durations(closed.filter(won).map((t) => t.holdMs)), losers: durations(closed.filter((t) => !won(t)).map((t) => t.holdMs)) },
    streaks: { longestWin, longestLoss },
    exposure,
    hourly: hourlyReturns(i.equity, i.startedAt, i.sampleMs),
  };
}
