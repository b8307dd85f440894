import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, startTestSim, type TestSim } from './sim-helpers.js';

type Row = { tx: string; type: string; time: number; priceUsd?: number; volume?: number; pool: string; wallet: string; identity?: unknown; tokens?: unknown[] };
type Page = { trades: Row[]; hasNextPage: boolean; nextCursor: string | null };

let t: TestSim;
let base: string;
let mint: string;
let ammPool: string;

beforeAll(async () => {
  t = await startTestSim({ seed: 21 });
  base = t.sim.urls.base;
  t.clock.advance(20 * 60_000);
  const grad = (await get<{ token: { mint: string }; pools: { poolId: string }[] }[]>(`${base}/tokens/multi/graduated?limit=500`)).body;
  // the graduated token with the most liquidity actions
  const counts = grad.map((g) => ({ g, n: t.sim.model.state.liquidityByToken.get(g.token.mint)?.length ?? 0 })).sort((a, b) => b.n - a.n);
  mint = counts[0]!.g.token.mint;
  ammPool = counts[0]!.g.pools[0]!.poolId;
});
afterAll(async () => {
  await t.sim.stop();
});

async function pageAll(path: string, limit: number): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const r: { status: number; body: Page } = await get<Page>(`${base}${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(r.status).toBe(200);
    rows.push(...r.body.trades);
    if (!r.body.hasNextPage) {
      expect(r.body.nextCursor).toBeNull();
      return rows;
    }
    cursor = r.body.nextCursor;
  }
}

describe('simulator REST: trades and liquidity history', () => {
  it('pages the trades-only feed with a timestamp cursor, newest first, without gaps or repeats', async () => {
    const all = await pageAll(`/trades/${mint}`, 37);
    const tape = t.sim.model.state.tradesByToken.get(mint)!;
    expect(all.map((r) => r.tx)).toEqual([...tape].reverse().map((r) => r.tx));
    expect(all.every((r) => r.type === 'buy' || r.type === 'sell')).toBe(true);
  });

  it('pages events=all with the opaque cursor in time order, mixing swaps and liquidity', async () => {
    const all = await pageAll(`/trades/${mint}?events=all&sortDirection=ASC`, 50);
    const trades = t.sim.model.state.tradesByToken.get(mint)!.length;
    const liq = t.sim.model.state.liquidityByToken.get(mint)!.length;
    expect(all.length).toBe(trades + liq);
    const times = all.map((r) => r.time);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    const liquidityRows = all.filter((r) => r.type === 'add_liquidity' || r.type === 'remove_liquidity');
    expect(liquidityRows.length).toBe(liq);
    expect(liquidityRows[0]).toMatchObject({
      program: 'venue_a-amm',
      amountBasis: 'transfer',
      programId: expect.any(String),
      instruction: expect.any(String),
      slot: expect.any(Number),
    });
    for (const tok of liquidityRows[0]!.tokens as { amountRaw: string; decimals: number; amount: string }[]) {
      expect(tok.amountRaw).toMatch(/^\d+$/);
      expect(Number(tok.amount)).toBeCloseTo(Number(tok.amountRaw) / 10 ** tok.decimals, 6);
    }
  });

  it('keeps a liquidity-only feed per pool and refuses a cursor reused with another scope', async () => {
    const r = await get<Page>(`${base}/trades/${mint}/${ammPool}?events=liquidity&limit=1`);
    expect(r.body.trades).toHaveLength(1);
    expect(r.body.trades[0]!.pool).toBe(ammPool);
    if (r.body.nextCursor) {
      const wrong = await get<{ error: { code: string; message: string } }>(
        `${base}/trades/${mint}?events=liquidity&cursor=${encodeURIComponent(r.body.nextCursor)}`,
      );
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.message).toContain('cursor');
    }
    const numeric = await get<Page>(`${base}/trades/${mint}?events=liquidity&sortDirection=ASC&cursor=${r.body.trades[0]!.time}`);
    for (const row of numeric.body.trades) expect(row.time).toBeGreaterThan(r.body.trades[0]!.time);
  });

  it('filters by wallet on both wallet routes and enriches identity on request', async () => {
    const some = (await get<Page>(`${base}/trades/${mint}?limit=1&enrich=identity`)).body.trades[0]!;
    expect(some).toHaveProperty('identity');
    const byWallet = await get<Page>(`${base}/trades/${mint}/by-wallet/${some.wallet}?limit=500`);
    expect(byWallet.body.trades.length).toBeGreaterThan(0);
    expect(byWallet.body.trades.every((r) => r.wallet === some.wallet)).toBe(true);
    const byPoolWallet = await get<Page>(`${base}/trades/${mint}/${some.pool}/${some.wallet}?limit=500`);
    expect(byPoolWallet.body.trades.every((r) => r.wallet === some.wallet && r.pool === some.pool)).toBe(true);
    expect((await get(`${base}/trades/${mint}?limit=0`)).status).toBe(400);
  });

  it('builds candles that agree with the trade tape for every bucket', async () => {
    const trades = await pageAll(`/trades/${mint}?sortDirection=ASC`, 500);
    const candles = (await get<{ time: number; open: number; high: number; low: number; close: number; volume: number }[]>(`${base}/chart/${mint}?type=1m`))
      .body;
    const buckets = new Map<number, Row[]>();
    for (const r of trades) {
      const b = Math.floor(r.time / 1000 / 60) * 60;
      buckets.set(b, [...(buckets.get(b) ?? []), r]);
    }
    expect(candles.map((c) => c.time)).toEqual([...buckets.keys()]);
    for (const c of candles) {
      const rows = buckets.get(c.time)!;
      const prices = rows.map((r) => r.priceUsd!);
      expect(c.open).toBe(prices[0]);
      expect(c.close).toBe(prices.at(-1));
      expect(c.high).toBe(Math.max(...prices));
      expect(c.low).toBe(Math.min(...prices));
      expect(c.volume).toBeCloseTo(
        rows.reduce((a, r) => a + r.volume!, 0),
        6,
      );
    }
    const from = candles[3]!.time;
    const to = candles[5]!.time;
    const ranged = (await get<{ time: number }[]>(`${base}/chart/${mint}?type=1m&time_from=${from}&time_to=${to}`)).body;
    expect(ranged.map((c) => c.time)).toEqual(candles.filter((c) => c.time >= from && c.time <= to).map((c) => c.time));
    const sol = (await get<{ close: number }[]>(`${base}/chart/${mint}?type=1h&currency=sol`)).body;
    expect(sol.at(-1)!.close).toBeCloseTo(candles.at(-1)!.close / 150, 12);
    expect((await get(`${base}/chart/${mint}?type=7m`)).status).toBe(400);
  });

  it('serves live and multi prices equal to the last trade, and price history', async () => {
    const last = t.sim.model.state.tradesByToken.get(mint)!.at(-1)!;
    const p = await get<{ price: number }>(`${base}/price?token=${mint}`);
    expect(p.body.price).toBeCloseTo(last.priceUsd, 9);
    const m = await get<Record<string, { price: number }>>(`${base}/price/multi?tokens=${mint}`);
    expect(m.body[mint]!.price).toBe(p.body.price);
    const ts = await get<{ price: number }>(`${base}/price/history/timestamp?token=${mint}&timestamp=${Math.floor(last.time / 1000) + 1}`);
    expect(ts.body.price).toBe(last.priceUsd);
    const range = await get<{ lowest: { price: number }; highest: { price: number } }>(
      `${base}/price/history/range?token=${mint}&time_from=0&time_to=${Math.floor(last.time / 1000) + 1}`,
    );
    expect(range.body.highest.price).toBeGreaterThanOrEqual(range.body.lowest.price);
  });
});
