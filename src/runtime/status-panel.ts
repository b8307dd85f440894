/**
 * Terminal output of a running session: a status block (events/s, open positions with PnL, recent
 * fills and denials) and the final summary (trades, win rate, PnL, fees, max drawdown).
 */
import type { Engine } from '../engine/engine.js';
import type { RunSummary } from '../engine/engine-stats.js';
import { formatSol } from '../engine/portfolio.js';
import type { FamilyRejects } from '../client/datastream/index.js';

const short = (mint: string): string => (mint.length > 10 ? `${mint.slice(0, 4)}…${mint.slice(-4)}` : mint);
const signed = (l: bigint): string => `${l >= 0n ? '+' : ''}${formatSol(l)}`;

/** What the panel reads of the feed: the Datastream client's rejects per room family. */
export interface FeedRejects {
  stats(): { readonly rejectedByFamily: Readonly<Record<string, FamilyRejects>> };
}

/** `rejected: transaction 3 ([0] token.from.address must be a string), frame 1 (not JSON)`, or '' when none. */
export function formatRejects(byFamily: Readonly<Record<string, FamilyRejects>>): string {
  const parts = Object.entries(byFamily).map(([family, r]) => `${family} ${r.rejected} (${r.sampleReason}${r.sampleRoom ? ` on ${r.sampleRoom}` : ''})`);
  return parts.length === 0 ? '' : `  rejected frames: ${parts.join(', ')}`;
}

/** Tracks the event rate between calls of `render`; with `feed`, shows its rejects per room family. */
export function createStatusPanel(engine: Engine, now: () => number, feed?: FeedRejects): { render(): string } {
  let lastEvents = engine.stats.events;
  let lastAt = now();
  return {
    render() {
      const t = now();
      const events = engine.stats.events;
      const rate = t > lastAt ? ((events - lastEvents) * 1000) / (t - lastAt) : 0;
      lastEvents = events;
      lastAt = t;
      const totals = engine.portfolio.totals();
      const lines = [
        `events ${events} (${rate.toFixed(0)}/s)  bad frames ${engine.stats.badFrames}  open ${totals.openPositions}  cash ${formatSol(totals.cashLamports)} SOL  equity ${formatSol(totals.equityLamports)} SOL  realised ${signed(totals.realisedLamports)}  unrealised ${signed(totals.unrealisedLamports)}`,
      ];
      const rejects = feed ? formatRejects(feed.stats().rejectedByFamily) : '';
      if (rejects) lines.push(rejects);
      for (const p of engine.portfolio.open().slice(0, 8)) {
        const value = engine.portfolio.valueOf(p);
        lines.push(`  ${p.strategyId.padEnd(18)} ${short(p.mint).padEnd(10)} cost ${formatSol(p.costLamports)}  pnl ${value === undefined ? '?' : signed(value - p.costLamports)}`);
      }
      for (const f of engine.stats.recentFills.slice(-3)) {
        lines.push(`  fill ${f.fill.side.padEnd(4)} ${short(f.fill.mint).padEnd(10)} ${formatSol(f.fill.solAmount)} SOL @ ${Number(f.fill.price).toPrecision(6)} (${f.strategyId})`);
      }
      for (const d of engine.stats.recentDenials.slice(-3)) lines.push(`  denied ${short(d.mint).padEnd(10)} ${d.code} (${d.strategyId})`);
      return lines.join('\n');
    },
  };
}

/** The end-of-run summary as text. */
export function formatSummary(s: RunSummary): string {
  const mins = s.startedAt === undefined ? 0 : (s.endedAt - s.startedAt) / 60_000;
  return [
    `summary over ${mins.toFixed(1)} min: ${s.events} events (${s.badFrames} bad frames), ${s.intents} intents, ${s.fills} fills, ${s.denials} denials`,
    `  trades ${s.trades}  wins ${s.wins}  win rate ${(s.winRate * 100).toFixed(1)}%  open positions ${s.openPositions}`,
    `  realised ${signed(s.realisedLamports)} SOL  unrealised ${signed(s.unrealisedLamports)} SOL  fees ${formatSol(s.feesLamports)} SOL`,
    `  equity ${formatSol(s.equityLamports)} SOL  max drawdown ${formatSol(s.maxDrawdownLamports)} SOL  strategy errors ${s.strategyErrors}`,
  ].join('\n');
}
