/**
 * The report's breakdowns (report.json `extras`): per token, exit reasons grouped by rule, per day,
 * week and month, trade durations of winners and losers, win and loss streaks, exposure over time,
 * and the per-hour return distribution that means something for runs too short for annualised
 * ratios. Computed from the report's own trade rows and equity samples; sums of SOL are exact.
 */
import { decimal, fromRaw } from '../../core/index.js';
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

/**
 * SOL amounts of the report's trade rows as integers at one scale (the most decimals any row has:
 * 9 for `signedSol`'s texts), so sums and comparisons are exact without a Decimal per row; `text`
 * writes a sum back as `Decimal`'s `toFixed` does (no trailing zeros, `0` for zero).
 */
class SolScale {
  readonly places: number;
  private readonly unit: bigint;

  constructor(texts: Iterable<string>) {
    let places = 0;
    for (const t of texts) {
      const dot = plainOf(t).indexOf('.');
      if (dot >= 0) places = Math.max(places, plainOf(t).length - dot - 1);
    }
    this.places = places;
    this.unit = 10n ** BigInt(places);
  }

  of(text: string): bigint {
    const t = plainOf(text);
    const negative = t.charCodeAt(0) === 45;
    const body = negative ? t.slice(1) : t;
    const dot = body.indexOf('.');
    const whole = BigInt(dot < 0 ? body : body.slice(0, dot)) * this.unit;
    const frac = dot < 0 ? 0n : BigInt(body.slice(dot + 1).padEnd(this.places, '0'));
    return negative ? -(whole + frac) : whole + frac;
  }

  text(v: bigint): string {
    return fromRaw(v, this.places);
  }
}

const PLAIN = /^-?\d+(\.\d+)?$/;
/** A decimal text in plain notation (`signedSol`'s always is). */
/** Every SOL text of `trades` the extras add up. */
function* solTexts(trades: readonly ReportTrade[]): Iterable<string> {
  for (const t of trades) {
    yield t.pnlSol;
    yield t.feesSol;
  }
}

const plainOf = (t: string): string => (PLAIN.test(t) ? t : decimal(t).toFixed());

/** A trade row with its PnL and fees at the report's SOL scale. */
interface Valued {
  readonly t: ReportTrade;
  readonly pnl: bigint;
  readonly fees: bigint;
}

function capTokens(rows: readonly (TokenRow & { readonly pnl: bigint; readonly fees: bigint })[], sol: SolScale): TokenRow[] {
  const plain = (r: TokenRow): TokenRow => ({ key: r.key, trades: r.trades, wins: r.wins, pnlSol: r.pnlSol, feesSol: r.feesSol, holdMs: r.holdMs });
  if (rows.length <= 2 * TOKEN_ENDS) return rows.map(plain);
  const middle = rows.slice(TOKEN_ENDS, rows.length - TOKEN_ENDS);
  const rest: TokenRow = {
    key: `${middle.length} other tokens`,
    trades: middle.reduce((a, r) => a + r.trades, 0),
    wins: middle.reduce((a, r) => a + r.wins, 0),
    pnlSol: sol.text(middle.reduce((a, r) => a + r.pnl, 0n)),
    feesSol: sol.text(middle.reduce((a, r) => a + r.fees, 0n)),
    holdMs: middle.reduce((a, r) => a + r.holdMs, 0),
  };
  return [...rows.slice(0, TOKEN_ENDS).map(plain), rest, ...rows.slice(rows.length - TOKEN_ENDS).map(plain)];
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
/** `YYYY-MM-DD` of UTC day numbers (a report's trades close on a few days: one Date per day, not per trade). */
const dayTexts = new Map<number, string>();
const dayOf = (t: number): string => {
  const d = Math.floor(t / DAY_MS);
  let text = dayTexts.get(d);
  if (text === undefined) {
    if (dayTexts.size > 4096) dayTexts.clear();
    dayTexts.set(d, (text = iso(d * DAY_MS).slice(0, 10)));
  }
  return text;
};
const monthOf = (t: number): string => dayOf(t).slice(0, 7);
/** The Monday (UTC) of `t`'s week, as `week of YYYY-MM-DD`. */
const weekOf = (t: number): string => {
  const d = Math.floor(t / DAY_MS);
  const monday = d - ((new Date(d * DAY_MS).getUTCDay() + 6) % 7);
  return `week of ${dayOf(monday * DAY_MS)}`;
};

/** Rows of `trades` by key: trades, wins among closed ones, PnL (summed exactly), in first-seen order. */
function groupValued(trades: readonly Valued[], keyOf: (t: ReportTrade) => string, sol: SolScale): (GroupRow & { readonly pnl: bigint })[] {
  const m = new Map<string, { trades: number; wins: number; pnl: bigint }>();
  for (const v of trades) {
    const k = keyOf(v.t);
    let g = m.get(k);
    if (g === undefined) m.set(k, (g = { trades: 0, wins: 0, pnl: 0n }));
    g.trades++;
    if (v.t.status === 'closed' && v.pnl > 0n) g.wins++;
    g.pnl += v.pnl;
  }
  return [...m.entries()].map(([key, g]) => ({ key, trades: g.trades, wins: g.wins, pnlSol: sol.text(g.pnl), pnl: g.pnl }));
}

function group(trades: readonly Valued[], keyOf: (t: ReportTrade) => string, sol: SolScale): GroupRow[] {
  return groupValued(trades, keyOf, sol).map((g) => ({ key: g.key, trades: g.trades, wins: g.wins, pnlSol: g.pnlSol }));
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
  const sol = new SolScale(solTexts(i.trades));
  const valued: Valued[] = i.trades.map((t) => ({ t, pnl: sol.of(t.pnlSol), fees: sol.of(t.feesSol) }));
  const closedV = valued.filter((v) => v.t.status === 'closed' && v.t.closedAt !== null).sort((a, b) => a.t.closedAt! - b.t.closedAt! || a.t.id - b.t.id);
  const closed = closedV.map((v) => v.t);
  const wonOf = new Map<ReportTrade, boolean>(closedV.map((v) => [v.t, v.pnl > 0n]));
  const won = (t: ReportTrade): boolean => wonOf.get(t) === true;

  const tokens = new Map<string, { fees: bigint; holdMs: number }>();
  for (const v of valued) {
    let g = tokens.get(v.t.mint);
    if (g === undefined) tokens.set(v.t.mint, (g = { fees: 0n, holdMs: 0 }));
    g.fees += v.fees;
    g.holdMs += v.t.holdMs;
  }
  const byToken = capTokens(
    groupValued(valued, (t) => t.mint, sol)
      .map((g) => {
        const tk = tokens.get(g.key)!;
        return { ...g, feesSol: sol.text(tk.fees), fees: tk.fees, holdMs: tk.holdMs };
      })
      .sort((a, b) => (b.pnl > a.pnl ? 1 : b.pnl < a.pnl ? -1 : 0) || (a.key < b.key ? -1 : 1)),
    sol,
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
    byExitRule: group(closedV, (t) => exitRuleOf(t.exitReason), sol).sort((a, b) => b.trades - a.trades || (a.key < b.key ? -1 : 1)),
    byPeriod: {
      day: byKey(group(closedV, (t) => dayOf(t.closedAt!), sol)),
      week: byKey(group(closedV, (t) => weekOf(t.closedAt!), sol)),
      month: byKey(group(closedV, (t) => monthOf(t.closedAt!), sol)),
    },
    durations: { winners: durations(closed.filter(won).map((t) => t.holdMs)), losers: durations(closed.filter((t) => !won(t)).map((t) => t.holdMs)) },
    streaks: { longestWin, longestLoss },
    exposure,
    hourly: hourlyReturns(i.equity, i.startedAt, i.sampleMs),
  };
}
