/**
 * A paper book's retention (`paper.bookRetention`): closed positions and unfilled intents older
 * than the retention leave the book, their sums stay in its carry, and a restart's cash, realised
 * PnL, fees and open positions equal those of a book that kept everything; an open position keeps
 * every row however old; the book prunes itself while it runs, so its rows stay bounded.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDeployment } from '../../src/config/index.js';
import { bps, lamports, rawAmount, type UnixMs } from '../../src/core/index.js';
import { restorePortfolio } from '../../src/engine/engine.js';
import type { Fill, OrderIntent } from '../../src/engine/orders/execution-port.js';
import { priceOf } from '../../src/engine/market/portfolio.js';
import { openDeploymentStore, type DeploymentStore } from '../../src/runtime/store/deployment-store.js';
import { paperCashAfter, PRUNE_EVERY_MS, type PaperBook } from '../../src/runtime/store/paper-book.js';
import { tempDir, type TempDir } from './helpers.js';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = 10_000_000_000n;

let tmp: TempDir | undefined;
const stores: DeploymentStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  tmp?.remove();
  tmp = undefined;
});

const mintOf = (n: number): string => `mint-${n}`;

function intentOf(id: string, mint: string, side: 'buy' | 'sell', at: number, strategyId = 'round-trip'): OrderIntent {
  const common = {
    id,
    strategyId,
    mint,
    decimals: 6,
    slippageBps: bps(300),
    priorityFeeLamports: lamports(10_000n),
    referencePrice: undefined,
    createdAt: at as UnixMs,
    reason: 'test',
  };
  return side === 'buy' ? { ...common, side, spendLamports: lamports(100_000_000n) } : { ...common, side, sellRaw: rawAmount(1_000_000n) };
}
function fillOf(intentId: string, mint: string, side: 'buy' | 'sell', sol: bigint, tokens: bigint, at: number): Fill {
  return {
    intentId,
    side,
    mint,
    decimals: 6,
    solAmount: lamports(sol),
    tokenAmount: rawAmount(tokens),
    feeLamports: lamports(5_000n + (sol % 7n)),
    price: priceOf(sol, tokens, 6),
    filledAt: at as UnixMs,
  };
}

/**
 * Trades on `book` for `days` days of run clock from T0: each hour a token bought and sold in three
 * parts (closed, a gain or a loss), a rejected buy and a failed one (fee paid); one token bought on
 * the first hour and never sold (open throughout). Returns the run clock at the end.
 */
function trade(book: PaperBook, days: number): number {
  let at = T0;
  const open = mintOf(0);
  book.submitted(intentOf('open-buy', open, 'buy', at));
  book.resolved({ type: 'filled', intentId: 'open-buy', at: (at + 1) as UnixMs, fill: fillOf('open-buy', open, 'buy', 300_000_000n, 9_000_000n, at + 1) });
  for (let h = 1; h <= days * 24; h++) {
    at = T0 + h * HOUR;
    const mint = mintOf(h);
    const id = (s: string): string => `i${h}-${s}`;
    book.submitted(intentOf(id('b'), mint, 'buy', at));
    book.resolved({ type: 'filled', intentId: id('b'), at: (at + 10) as UnixMs, fill: fillOf(id('b'), mint, 'buy', 100_000_000n, 3_000_000n, at + 10) });
    for (const [k, part, sol] of [
      ['s1', 1_000_000n, 40_000_000n + BigInt(h) * 1_000n],
      ['s2', 1_500_000n, 55_000_000n],
      ['s3', 500_000n, 10_000_000n + BigInt(h % 5) * 3_000_000n],
    ] as const) {
      book.submitted(intentOf(id(k), mint, 'sell', at + 20));
      book.resolved({ type: 'filled', intentId: id(k), at: (at + 30) as UnixMs, fill: fillOf(id(k), mint, 'sell', sol, part, at + 30) });
    }
    book.submitted(intentOf(id('r'), mint, 'buy', at + 40));
    book.resolved({ type: 'rejected', intentId: id('r'), at: (at + 40) as UnixMs, code: 'RISK_COOLDOWN', reason: 'test' });
    book.submitted(intentOf(id('f'), mintOf(h + 100_000), 'buy', at + 50));
    book.resolved({ type: 'failed', intentId: id('f'), at: (at + 60) as UnixMs, code: 'PAPER_SLIPPAGE', reason: 'test', feeLamports: lamports(7_000n) });
    book.flush();
  }
  return at + 60;
}

/** Totals and open positions a restart builds from the store at `path`, reopened at `at`. */
async function restart(
  path: string,
  at: number,
  retentionMs?: number,
): Promise<{ cash: bigint; realised: bigint; fees: bigint; open: unknown[]; rows: number }> {
  const s = openDeploymentStore({ path, deployment: 'book', paper: { market: 'm1', at, ...(retentionMs !== undefined ? { retentionMs } : {}) } });
  const r = s.paper!.restored();
  await s.close();
  const cash = paperCashAfter(START, r);
  const p = restorePortfolio(cash, r.fills, r.failedFees, () => undefined, r.carry);
  const t = p.totals();
  expect(t.startingCashLamports).toBe(START);
  return {
    cash: t.cashLamports,
    realised: t.realisedLamports,
    fees: t.feesLamports,
    open: p.open().map((o) => [o.strategyId, o.mint, o.tokenRaw, o.costLamports, o.realisedLamports, o.openedAt]),
    rows: rowsIn(path),
  };
}
const rowsIn = (path: string): number => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM paper_intents').get()!.n;
  } finally {
    db.close();
  }
};

describe('paper.bookRetention', () => {
  it('forgets closed positions and unfilled intents past the retention, and a restart rebuilds the same cash, PnL, fees and open positions', async () => {
    tmp = tempDir('cp-book-retention-');
    const kept = join(tmp.dir, 'kept.db');
    const pruned = join(tmp.dir, 'pruned.db');
    let end = 0;
    for (const path of [kept, pruned]) {
      const s = openDeploymentStore({ path, deployment: 'book', paper: { market: 'm1', at: T0 } });
      end = trade(s.paper!, 4);
      await s.close();
    }
    const full = await restart(kept, end + HOUR);
    const short = await restart(pruned, end + HOUR, DAY);
    expect(short.cash).toBe(full.cash);
    expect(short.realised).toBe(full.realised);
    expect(short.fees).toBe(full.fees);
    expect(short.open).toEqual(full.open);
    expect(full.realised).not.toBe(0n); // the trades moved the totals: the carry carries something
    // four days of 6 rows an hour and the open buy; a day (and the hour since) kept, plus the open position's buy
    expect(full.rows).toBe(4 * 24 * 6 + 1);
    expect(short.rows).toBeLessThanOrEqual(25 * 6 + 1);
    expect(short.rows).toBeGreaterThan(23 * 6);
    // a second restart with the carry reads the same again (the carry adds up across prunes)
    const again = await restart(pruned, end + 2 * DAY, DAY);
    expect([again.cash, again.realised, again.fees, again.open]).toEqual([full.cash, full.realised, full.fees, full.open]);
    expect(again.rows).toBe(1); // only the open position's buy is left
  });

  it('prunes while the deployment runs, once an hour of the reports’ time, so the book stays bounded', async () => {
    tmp = tempDir('cp-book-retention-');
    const path = join(tmp.dir, 'book.db');
    const s = openDeploymentStore({ path, deployment: 'book', paper: { market: 'm1', at: T0, retentionMs: DAY, defer: () => undefined } });
    stores.push(s);
    const end = trade(s.paper!, 5);
    expect(PRUNE_EVERY_MS).toBe(HOUR);
    // without pruning: 5 days × 24 h × 6 rows; with: about a day of rows (and the prune's hour)
    expect(rowsIn(path)).toBeLessThanOrEqual(26 * 6 + 1);
    const kept = join(tmp.dir, 'kept.db');
    const k = openDeploymentStore({ path: kept, deployment: 'book', paper: { market: 'm1', at: T0, defer: () => undefined } });
    stores.push(k);
    trade(k.paper!, 5);
    await s.close();
    await k.close();
    const a = await restart(path, end + 1, DAY);
    const b = await restart(kept, end + 1);
    expect([a.cash, a.realised, a.fees, a.open]).toEqual([b.cash, b.realised, b.fees, b.open]);
  });

  it('keeps every row of a position still open, however old', async () => {
    tmp = tempDir('cp-book-retention-');
    const path = join(tmp.dir, 'book.db');
    const s = openDeploymentStore({ path, deployment: 'book', paper: { market: 'm1', at: T0 } });
    const mint = mintOf(7);
    s.paper!.submitted(intentOf('b1', mint, 'buy', T0));
    s.paper!.resolved({ type: 'filled', intentId: 'b1', at: (T0 + 1) as UnixMs, fill: fillOf('b1', mint, 'buy', 100_000_000n, 2_000_000n, T0 + 1) });
    s.paper!.submitted(intentOf('s1', mint, 'sell', T0 + 2));
    s.paper!.resolved({ type: 'filled', intentId: 's1', at: (T0 + 3) as UnixMs, fill: fillOf('s1', mint, 'sell', 60_000_000n, 1_000_000n, T0 + 3) });
    s.paper!.submitted(intentOf('f1', mint, 'sell', T0 + 4));
    s.paper!.resolved({ type: 'failed', intentId: 'f1', at: (T0 + 5) as UnixMs, code: 'PAPER_SLIPPAGE', reason: 'test', feeLamports: lamports(9_000n) });
    await s.close();
    const full = await restart(path, T0 + 30 * DAY);
    const r = await restart(path, T0 + 30 * DAY + 1, DAY);
    expect(r.rows).toBe(3);
    expect(r.open).toHaveLength(1);
    expect([r.cash, r.realised, r.fees, r.open]).toEqual([full.cash, full.realised, full.fees, full.open]);
  });

  it('is refused below a day, naming the field and the range', () => {
    const yaml = (v: string): string =>
      ['version: 1', 'name: r', 'endpoints:', '  simulator: { seed: 1 }', 'strategies:', '  - use: graduation-sniper', 'paper:', `  bookRetention: ${v}`].join(
        '\n',
      );
    expect(() => parseDeployment(yaml('12h'), 'r.yaml')).toThrow(/paper\.bookRetention.*expected a duration from 1d/s);
    expect(parseDeployment(yaml('7d'), 'r.yaml').deployment.paper.bookRetention).toBe(7 * DAY);
  });
});
