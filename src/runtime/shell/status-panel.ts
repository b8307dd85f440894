/**
 * Terminal output of a running deployment, read from its handle: on a TTY one screen redrawn in
 * place (balances, PnL, open positions, pending intents, feed health with frames/s and last-frame
 * age, rejected frames, denials and refusals one counted line per code), with the run's log written
 * above it as readable lines; without a TTY one compact line per interval. And the end-of-run
 * summary and shutdown report.
 */
import type { RunSummary } from '../../engine/logs/engine-stats.js';
import { formatSol } from '../../engine/market/portfolio.js';
import type { FamilyRejects } from '../../client/datastream/index.js';
import type { DeploymentHandle, ShutdownReport } from '../handle/deployment-handle.js';

const short = (mint: string): string => (mint.length > 10 ? `${mint.slice(0, 4)}…${mint.slice(-4)}` : mint);
const signed = (l: bigint): string => `${l >= 0n ? '+' : ''}${formatSol(l)}`;
const age = (ms: number | undefined): string => (ms === undefined ? 'never' : ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`);

/** Rows of open positions and pending intents shown on the TTY screen (more are counted). */
const MAX_ROWS = 8;

export interface StatusPanel {
  /** The full screen (TTY). */
  screen(): string;
  /** One compact line (no TTY). */
  line(): string;
}

export interface StatusPanelOptions {
  /** Log lines about single orders the panel's log sink held back (counted in the refusal lines instead). */
  readonly heldLogLines?: () => number;
}

/**
 * The engine's denials and the executor's refusals together, one counted line per code (most
 * first, {@link MAX_ROWS} of them, the rest summed), never the log lines that reported them.
 */
export function refusalLines(byCode: Readonly<Record<string, number>>, heldLogLines = 0): string[] {
  const codes = Object.entries(byCode).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const total = codes.reduce((n, [, c]) => n + c, 0);
  if (codes.length === 0) return [`denials and refusals none${heldLogLines > 0 ? ` (${heldLogLines} log lines held back)` : ''}`];
  const width = Math.max(...codes.slice(0, MAX_ROWS).map(([c]) => c.length));
  const out = [`denials and refusals ${total}${heldLogLines > 0 ? ` (${heldLogLines} log lines about them held back; the decision log has each)` : ''}`];
  for (const [code, n] of codes.slice(0, MAX_ROWS)) out.push(`  ${code.padEnd(width)} ${String(n).padStart(7)}`);
  const rest = codes.slice(MAX_ROWS);
  if (rest.length > 0) out.push(`  … ${rest.length} more codes, ${rest.reduce((n, [, c]) => n + c, 0)} in all`);
  return out;
}

/** Tracks the event rate between renders; `nowMs` is the run clock. */
export function createStatusPanel(handle: DeploymentHandle, nowMs: () => number, o: StatusPanelOptions = {}): StatusPanel {
  let lastEvents = 0;
  let lastAt: number | undefined;
  const rate = (events: number): number => {
    const t = nowMs();
    const r = lastAt !== undefined && t > lastAt ? ((events - lastEvents) * 1000) / (t - lastAt) : 0;
    lastEvents = events;
    lastAt = t;
    return r;
  };
  const feedText = (): string => {
    const h = handle.health();
    const f = h.feed;
    const last = f.lastFrameAt === undefined ? undefined : h.at - f.lastFrameAt;
    return `feed ${f.state} ${f.framesPerSec.toFixed(0)} frames/s last ${age(last)} rejected ${f.rejected} dropped ${f.dropped} gaps ${f.gaps}`;
  };
  return {
    line() {
      const s = handle.stats();
      const h = handle.health();
      const sum = s.summary;
      const denials = Object.values(s.denialsByCode).reduce((n, x) => n + x, 0);
      return `${h.state}  events ${sum.events} (${rate(sum.events).toFixed(0)}/s)  ${feedText()}  open ${sum.openPositions}  pending ${s.pending.length}  equity ${formatSol(sum.equityLamports)} SOL  realised ${signed(sum.realisedLamports)}  unrealised ${signed(sum.unrealisedLamports)}  denials ${denials}  refused ${sum.rejections}${h.cause ? `  (${h.cause.code})` : ''}`;
    },
    screen() {
      const s = handle.stats();
      const h = handle.health();
      const sum = s.summary;
      const lines = [
        `${handle.name} [${handle.mode}] ${h.state}${h.cause ? ` (${h.cause.code}: ${h.cause.message})` : ''}`,
        `equity ${formatSol(sum.equityLamports)} SOL  realised ${signed(sum.realisedLamports)}  unrealised ${signed(sum.unrealisedLamports)}  fees ${formatSol(sum.feesLamports)}  max drawdown ${formatSol(sum.maxDrawdownLamports)}`,
        `events ${sum.events} (${rate(sum.events).toFixed(0)}/s)  intents ${sum.intents}  fills ${sum.fills}  trades ${sum.trades}  strategy errors ${sum.strategyErrors}`,
        feedText(),
        `open positions ${s.positions.length}`,
      ];
      for (const p of s.positions.slice(0, MAX_ROWS)) {
        lines.push(
          `  ${p.strategyId.padEnd(18)} ${short(p.mint).padEnd(10)} cost ${formatSol(p.costLamports)}  pnl ${p.unrealisedLamports === undefined ? '?' : signed(p.unrealisedLamports)}`,
        );
      }
      if (s.positions.length > MAX_ROWS) lines.push(`  … ${s.positions.length - MAX_ROWS} more`);
      lines.push(`pending intents ${s.pending.length}`);
      for (const p of s.pending.slice(0, MAX_ROWS))
        lines.push(`  ${p.intent.side.padEnd(4)} ${short(p.intent.mint).padEnd(10)} ${p.state.padEnd(8)} ${p.intent.strategyId}`);
      if (s.pending.length > MAX_ROWS) lines.push(`  … ${s.pending.length - MAX_ROWS} more`);
      lines.push(...refusalLines(sum.refusalsByCode, o.heldLogLines?.() ?? 0));
      const rejected = Object.entries(h.feed.rejectedByFamily);
      if (rejected.length > 0) lines.push(`rejected frames ${rejected.map(([f, r]) => `${f} ${r.count} (${r.sample.slice(0, 60)})`).join('; ')}`);
      return lines.join('\n');
    },
  };
}

/** A screen redrawn in place, with lines written above it (logs) that scroll while it stays at the bottom. */
export interface Redraw {
  draw(text: string): void;
  /** Writes `text` (whole lines) through `writeAbove` where the screen is, then draws the screen again below it. */
  above(text: string): void;
  /** The screen is no longer redrawn: what follows is written after it. */
  done(): void;
}

/**
 * Writes frames of a screen so that each one replaces the previous (cursor up, clear to the end),
 * keeping the terminal's earlier output above it. `writeAbove` (default `write`) writes the lines
 * given to `above`, e.g. to stderr when both streams are one terminal.
 */
export function createRedraw(write: (text: string) => void, writeAbove: (text: string) => void = write): Redraw {
  let previousLines = 0;
  let frame = '';
  return {
    draw(text) {
      const up = previousLines > 0 ? `\x1b[${previousLines}F` : '';
      write(`${up}\x1b[J${text}\n`);
      frame = text;
      previousLines = text.split('\n').length;
    },
    above(text) {
      if (previousLines === 0) {
        writeAbove(text);
        return;
      }
      write(`\x1b[${previousLines}F\x1b[J`);
      writeAbove(text);
      write(`${frame}\n`);
    },
    done() {
      previousLines = 0;
    },
  };
}

const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const ERROR_LEVEL = 50;

/**
 * The run's log under a status panel on a terminal: each record (a pino JSON line) becomes one
 * readable line written above the panel, never raw JSON through it. Records below error about one
 * order (a `code` with an `intentId` or a `strategyId`: denials, refusals) are held back and
 * counted: the panel shows them as its counted lines per code, the decision log keeps each.
 */
export function createPanelLog(redraw: Pick<Redraw, 'above'>): { write(record: string): void; held(): number } {
  let held = 0;
  return {
    write(record) {
      const line = panelLogLine(record);
      if (line === undefined) held++;
      else redraw.above(`${line}\n`);
    },
    held: () => held,
  };
}

/** One pino record as one line (`12:00:01 WARN message (CODE) err`), or undefined for a record about one order below error. */
export function panelLogLine(record: string): string | undefined {
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(record) as Record<string, unknown>;
  } catch {
    return record.trimEnd();
  }
  const level = typeof r['level'] === 'number' ? r['level'] : 30;
  const code = typeof r['code'] === 'string' ? r['code'] : undefined;
  if (level < ERROR_LEVEL && code !== undefined && (typeof r['intentId'] === 'string' || typeof r['strategyId'] === 'string')) return undefined;
  const time = typeof r['time'] === 'number' ? new Date(r['time']).toISOString().slice(11, 19) : '--:--:--';
  const err = r['err'];
  const errText =
    typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string' ? `: ${(err as { message: string }).message}` : '';
  const msg = typeof r['msg'] === 'string' ? r['msg'] : '';
  return `${time} ${LEVEL_NAMES[level] ?? String(level)} ${msg}${code ? ` (${code})` : ''}${errText}`;
}

/** The end-of-run summary as text. */
export function formatSummary(s: RunSummary): string {
  const mins = s.startedAt === undefined ? 0 : (s.endedAt - s.startedAt) / 60_000;
  return [
    `summary over ${mins.toFixed(1)} min: ${s.events} events (${s.badFrames} bad frames), ${s.intents} intents, ${s.fills} fills, ${s.denials} denials, ${s.rejections} refused by the executor`,
    ...refusalLine(s.refusalsByCode),
    `  trades ${s.trades}  wins ${s.wins}  win rate ${(s.winRate * 100).toFixed(1)}%  open positions ${s.openPositions}`,
    `  realised ${signed(s.realisedLamports)} SOL  unrealised ${signed(s.unrealisedLamports)} SOL  fees ${formatSol(s.feesLamports)} SOL`,
    `  equity ${formatSol(s.equityLamports)} SOL  max drawdown ${formatSol(s.maxDrawdownLamports)} SOL  strategy errors ${s.strategyErrors}${s.tokensQuarantined > 0 ? `  tokens quarantined ${s.tokensQuarantined}` : ''}`,
  ].join('\n');
}

/** `  refusals by code: LIVE_SPEND_CAP_DAY 171, RISK_MAX_OPEN_POSITIONS 1`, or nothing when there were none. */
function refusalLine(byCode: Readonly<Record<string, number>>): string[] {
  const parts = Object.entries(byCode).map(([code, n]) => `${code} ${n}`);
  return parts.length === 0 ? [] : [`  refusals by code: ${parts.join(', ')}`];
}

/** The per-intent shutdown report as text (empty when nothing was in flight). */
export function formatShutdownReport(r: ShutdownReport): string {
  if (r.intents.length === 0) return `shutdown: no intent was in flight`;
  const lines = [`shutdown: ${r.intents.length} intent(s) were in flight${r.drainedWithinDeadline ? '' : '; the drain deadline passed'}`];
  for (const i of r.intents) lines.push(`  ${i.intentId} ${i.side} ${short(i.mint)} ${i.outcome} (${i.state})${i.signature ? ` ${i.signature}` : ''}`);
  return lines.join('\n');
}

/** `  rejected frames: transaction 3 ([0] token.from.address must be a string on transaction:M), frame 1 (not JSON)`, or '' when none. */
export function formatRejects(byFamily: Readonly<Record<string, FamilyRejects>>): string {
  const parts = Object.entries(byFamily).map(([family, r]) => `${family} ${r.rejected} (${r.sampleReason}${r.sampleRoom ? ` on ${r.sampleRoom}` : ''})`);
  return parts.length === 0 ? '' : `  rejected frames: ${parts.join(', ')}`;
}
