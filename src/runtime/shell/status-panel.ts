/**
 * Terminal output of a running deployment, read from its handle: on a TTY one screen redrawn in
 * place (balances, PnL, open positions, pending intents, feed health with frames/s and last-frame
 * age, rejected frames, denials); without a TTY one compact line per interval. And the end-of-run
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

/** Tracks the event rate between renders; `nowMs` is the run clock. */
export function createStatusPanel(handle: DeploymentHandle, nowMs: () => number): StatusPanel {
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
      // the engine's denials and the executor's refusals (live rails) together, by code
      const refusals = Object.entries(sum.refusalsByCode);
      lines.push(`denials and refusals ${refusals.map(([c, n]) => `${c} ${n}`).join(', ') || 'none'}`);
      const rejected = Object.entries(h.feed.rejectedByFamily);
      if (rejected.length > 0) lines.push(`rejected frames ${rejected.map(([f, r]) => `${f} ${r.count} (${r.sample.slice(0, 60)})`).join('; ')}`);
      return lines.join('\n');
    },
  };
}

/**
 * Writes frames of a screen so that each one replaces the previous (cursor up, clear to the end),
 * keeping the terminal's earlier output above it.
 */
export function createRedraw(write: (text: string) => void): { draw(text: string): void; done(): void } {
  let previousLines = 0;
  return {
    draw(text) {
      const up = previousLines > 0 ? `\x1b[${previousLines}F` : '';
      write(`${up}\x1b[J${text}\n`);
      previousLines = text.split('\n').length;
    },
    done() {
      previousLines = 0;
    },
  };
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
