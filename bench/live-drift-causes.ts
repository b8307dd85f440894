/**
 * Why live fills went unpaired in a backtest (bench live-drift): each live fill the backtest did not
 * make, by cause, from the two decision logs. A refusal the backtest logged for the same decision
 * names its code; a sell with no paired decision is of a position the backtest never opened, had
 * closed already, or kept open (no exit decided: a take-profit level its entry price put out of
 * reach, or a failed exit with no tick after it); a buy with no paired decision is of a token the
 * backtest held already, refused near that instant, or never decided while it held more positions
 * than live (the position limit) or as many.
 *
 *   node --import tsx bench/live-drift-causes.ts LIVE.decisions.jsonl BACKTEST/decisions.jsonl
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DecisionEntry } from '../src/engine/logs/decision-log.js';
import { pairFills } from '../src/research/backtest/pair-fills.js';

/** Open positions over time from one decision log's fills: per strategy and token, tokens held after each fill. */
interface Book {
  /** Fills of each `strategy|mint`, in order: [at, tokens held after]. */
  readonly byKey: Map<string, [number, bigint][]>;
}

function bookOf(entries: readonly DecisionEntry[]): Book {
  const byKey = new Map<string, [number, bigint][]>();
  const keyOf = new Map<string, string>();
  for (const e of entries) {
    if (e.kind === 'intent') keyOf.set(e.intentId, `${e.strategyId}|${e.mint}`);
    if (e.kind !== 'fill') continue;
    const key = keyOf.get(e.intentId) ?? `${e.strategyId}|${e.mint}`;
    const list = byKey.get(key) ?? [];
    const held = (list.at(-1)?.[1] ?? 0n) + (e.side === 'buy' ? BigInt(e.tokenAmount) : -BigInt(e.tokenAmount));
    list.push([e.at, held < 0n ? 0n : held]);
    byKey.set(key, list);
  }
  return { byKey };
}

/** Tokens held of `key` just before `t`, and whether any buy of it had filled by then. */
function heldAt(b: Book, key: string, t: number): { held: bigint; opened: boolean } {
  const list = (b.byKey.get(key) ?? []).filter(([at]) => at < t);
  return { held: list.at(-1)?.[1] ?? 0n, opened: list.length > 0 };
}

/** Open positions (every strategy) just before `t`. */
function openAt(b: Book, t: number): number {
  let n = 0;
  for (const key of b.byKey.keys()) if (heldAt(b, key, t).held > 0n) n++;
  return n;
}

const parse = (text: string): DecisionEntry[] =>
  text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as DecisionEntry);

/** Each unpaired live fill's cause, counted (most frequent first). */
export function unpairedCauses(liveLog: string, backtestLog: string): { cause: string; count: number }[] {
  const live = parse(liveLog);
  const bt = parse(backtestLog);
  const liveBook = bookOf(live);
  const btBook = bookOf(bt);
  const denials = bt.flatMap((e) => (e.kind === 'denied' ? [e] : []));
  const counts = new Map<string, number>();
  for (const p of pairFills(liveLog, backtestLog).pairs) {
    if (p.live?.outcome !== 'filled' || p.backtest?.outcome === 'filled') continue;
    const t = p.live.decidedAt;
    const key = `${p.strategyId}|${p.mint}`;
    let cause: string;
    if (p.backtest) cause = `${p.side}: refused in the backtest (${p.backtest.code ?? p.backtest.outcome})`;
    else if (p.side === 'sell') {
      const h = heldAt(btBook, key, t);
      cause = !h.opened
        ? 'sell: the backtest never opened the position'
        : h.held === 0n
          ? 'sell: the backtest had closed the position'
          : 'sell: the backtest kept the position (no exit decided)';
    } else {
      const denied = denials.find((d) => d.strategyId === p.strategyId && d.mint === p.mint && Math.abs(d.at - t) <= 2_000);
      const btOpen = openAt(btBook, t);
      const liveOpen = openAt(liveBook, t);
      if (heldAt(btBook, key, t).held > 0n) cause = 'buy: the backtest held the token already';
      else if (denied) cause = `buy: denied in the backtest near that instant (${denied.code})`;
      else if (btOpen > liveOpen) cause = 'buy: not decided while the backtest held more positions than live';
      else cause = 'buy: not decided (the strategy saw another market or state)';
    }
    counts.set(cause, (counts.get(cause) ?? 0) + 1);
  }
  return [...counts].map(([cause, count]) => ({ cause, count })).sort((a, b) => b.count - a.count || a.cause.localeCompare(b.cause));
}

/** When each position (strategy and token) first closed; undefined while open at the log's end. */
function firstCloses(b: Book): Map<string, number | undefined> {
  const out = new Map<string, number | undefined>();
  for (const [key, list] of b.byKey) out.set(key, list.find(([, held]) => held === 0n)?.[0]);
  return out;
}

/**
 * The root of most unpaired fills: positions both opened that the backtest closed more than `slackMs`
 * later than live (or never), by the backtest's exit reason. One of them holds a slot of the position
 * limit, and live's next buys (and their sells) have no counterpart.
 */
export function heldLonger(liveLog: string, backtestLog: string, slackMs = 10_000): { reason: string; count: number }[] {
  const bt = parse(backtestLog);
  const liveClose = firstCloses(bookOf(parse(liveLog)));
  const btClose = firstCloses(bookOf(bt));
  const reasons = new Map<string, string>();
  for (const e of bt) if (e.kind === 'intent' && e.side === 'sell') reasons.set(`${e.strategyId}|${e.mint}|${e.at}`, e.reason.replace(/ [0-9.]+.*$/, ''));
  const counts = new Map<string, number>();
  for (const [key, l] of liveClose) {
    if (!btClose.has(key) || l === undefined) continue;
    const b = btClose.get(key);
    if (b !== undefined && b - l <= slackMs) continue;
    const sells = bt.filter((e) => e.kind === 'intent' && e.side === 'sell' && `${e.strategyId}|${e.mint}` === key && (b === undefined || e.at <= b));
    const last = sells.at(-1);
    const reason = b === undefined ? 'still open at the end' : last && last.kind === 'intent' ? (reasons.get(`${key}|${last.at}`) ?? 'unknown') : 'unknown';
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [livePath, btPath] = process.argv.slice(2);
  if (!livePath || !btPath) throw new Error('usage: live-drift-causes.ts LIVE.decisions.jsonl BACKTEST/decisions.jsonl');
  const live = readFileSync(livePath, 'utf8');
  const bt = readFileSync(btPath, 'utf8');
  console.log('unpaired live fills, by cause:');
  for (const c of unpairedCauses(live, bt)) console.log(`${String(c.count).padStart(5)}  ${c.cause}`);
  console.log('positions the backtest closed over 10 s later than live, by its exit:');
  for (const c of heldLonger(live, bt)) console.log(`${String(c.count).padStart(5)}  ${c.reason}`);
}
