import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, startTestSim, type TestSim } from './sim-helpers.js';

type Obj = Record<string, unknown>;
type TokenWithPools = {
  token: Obj & { mint: string; name: string; symbol: string };
  pools: (Obj & { market: string; poolId: string; deployer: string; liquidity: { usd: number } })[];
};

let t: TestSim;
let base: string;

beforeAll(async () => {
  t = await startTestSim();
  base = t.sim.urls.base;
  t.clock.advance(25 * 60_000);
});
afterAll(async () => {
  await t.sim.stop();
});

describe('simulator REST: auth and errors', () => {
  it('answers 401 with the error body when x-api-key is missing or wrong', async () => {
    for (const key of [null, 'wrong']) {
      const r = await get<{ error: { code: string; message: string } }>(`${base}/tokens/latest`, key);
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('UNAUTHORIZED');
      expect(r.body.error.message).toContain('x-api-key');
    }
  });

  it('requires the same key on the prediction API and answers in its error shape', async () => {
    const r = await get<{ code: number; error: string; errorCode: string }>(`${t.sim.urls.prediction}/v1/events`, 'wrong');
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ code: 401, errorCode: 'UNAUTHORIZED', error: expect.stringContaining('x-api-key') });
    expect((await get(`${t.sim.urls.prediction}/v1/events`)).status).toBe(200);
  });

  it('serves multi prices by POST with the 100-token limit', async () => {
    const mints = (await get<TokenWithPools[]>(`${base}/tokens/multi/all?limit=3`)).body.map((x) => x.token.mint);
    expect(mints).toHaveLength(3);
    const r = await post<Record<string, { price: number }>>(`${base}/price/multi`, { tokens: mints });
    expect(Object.keys(r.body).sort()).toEqual([...mints].sort());
    const tooMany = await post(`${base}/price/multi`, { tokens: Array.from({ length: 101 }, (_, i) => `m${i}`) });
    expect(tooMany.status).toBe(400);
  });

  it('answers 400 naming the field for an invalid parameter, and 404 for an unknown token', async () => {
    const bad = await get<{ error: { code: string; message: string } }>(`${base}/tokens/multi/graduating?limit=501`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect(bad.body.error.message).toContain('limit');
    const missing = await get<{ error: { code: string } }>(`${base}/tokens/So1unknown`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });
});

describe('simulator REST: tokens and discovery', () => {
  it('lists the latest 100 tokens newest first, each with pools', async () => {
    const r = await get<TokenWithPools[]>(`${base}/tokens/latest`);
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(100);
    const times = r.body.map((x) => x.pools.at(-1)!['createdAt'] as number);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const first = r.body[0]!;
    expect(first.token).toMatchObject({ mint: expect.any(String), name: expect.any(String), symbol: expect.any(String) });
    expect(first.pools[0]).toMatchObject({
      market: expect.stringMatching(/^venue_/),
      poolId: expect.any(String),
      deployer: expect.any(String),
      tokenProgram: 'spl-token',
      isMayhemMode: false,
    });
    expect(first.pools[0]!['creation']).toMatchObject({ creator: first.pools[0]!.deployer, created_tx: expect.any(String), created_time: expect.any(Number) });
  });

  it('serves a full token object with events, risk and counts, and several at once by POST', async () => {
    const latest = (await get<TokenWithPools[]>(`${base}/tokens/latest`)).body;
    const mint = latest[5]!.token.mint;
    const r = await get<Obj>(`${base}/tokens/${mint}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(expect.arrayContaining(['token', 'pools', 'events', 'risk', 'buys', 'sells', 'txns', 'holders']));
    expect(r.body['txns']).toBe((r.body['buys'] as number) + (r.body['sells'] as number));
    const risks = (r.body['risk'] as { risks: { name: string; score: number }[] }).risks;
    expect(risks.map((x) => x.score)).toContain(10);
    expect(r.body).not.toHaveProperty('graduatedAt');
    const multi = await post<Obj>(
      `${base}/tokens/multi`,
      latest.slice(0, 3).map((x) => x.token.mint),
    );
    expect(Object.keys(multi.body)).toHaveLength(3);
    const tooMany = await post(
      `${base}/tokens/multi`,
      latest.slice(0, 21).map((x) => x.token.mint),
    );
    expect(tooMany.status).toBe(400);
  });

  it('keeps graduating and graduated lists consistent with search status and graduatedAt', async () => {
    const grad = await get<(TokenWithPools & { graduationTx: string; graduationTime: number })[]>(`${base}/tokens/multi/graduated?limit=500`);
    expect(grad.body.length).toBeGreaterThan(0);
    for (const g of grad.body) expect(g.pools[0]!.market).toBe('venue_a-amm');
    const search = await get<{ data: { mint: string; graduatedAt: number | null; status: string }[] }>(`${base}/search?status=graduated&limit=500`);
    const byMint = new Map(search.body.data.map((d) => [d.mint, d]));
    expect(search.body.data.length).toBe(grad.body.length);
    for (const g of grad.body) expect(byMint.get(g.token.mint)?.graduatedAt).toBe(g.graduationTime);
    const graduating = await get<(TokenWithPools & { curvePercentage: number })[]>(`${base}/tokens/multi/graduating?minCurve=10&minHolders=0`);
    for (const g of graduating.body) {
      expect(g.curvePercentage).toBeGreaterThanOrEqual(10);
      expect(g.pools[0]!.market).not.toBe('venue_a-amm');
    }
  });

  it('filters search by curve percentage and sorts by community messages', async () => {
    const r = await get<{ data: { curvePercentage: number; communityMessages: number; hasCoinCommunity: boolean; riskScore: number }[] }>(
      `${base}/search?minCurvePercentage=20&maxCurvePercentage=80&sortBy=communityMessages&sortOrder=desc&limit=50`,
    );
    expect(r.status).toBe(200);
    for (const d of r.body.data) {
      expect(d.curvePercentage).toBeGreaterThanOrEqual(20);
      expect(d.curvePercentage).toBeLessThanOrEqual(80);
      expect(d.hasCoinCommunity).toBe(d.communityMessages > 0);
      expect(d.riskScore).toBeGreaterThanOrEqual(1);
    }
    const msgs = r.body.data.map((d) => d.communityMessages);
    expect([...msgs].sort((a, b) => b - a)).toEqual(msgs);
    expect((await get(`${base}/search?status=done`)).status).toBe(400);
  });

  it('serves holders (plain, enriched, paginated, top) that add up to the holder count', async () => {
    const grad = (await get<TokenWithPools[]>(`${base}/tokens/multi/graduated`)).body[0]!;
    const mint = grad.token.mint;
    const plain = await get<{ total: number; accounts: { wallet: string; amountRaw: string; percentage: number }[] }>(`${base}/tokens/${mint}/holders`);
    expect(plain.body.accounts.length).toBe(Math.min(100, plain.body.total));
    const enriched = await get<{ accounts: { identity: unknown; pnl: unknown }[] }>(`${base}/tokens/${mint}/holders?enrich=all`);
    expect(enriched.body.accounts[0]).toHaveProperty('identity');
    expect(enriched.body.accounts[0]).toHaveProperty('pnl');
    expect((await get(`${base}/tokens/${mint}/holders?enrich=bogus`)).status).toBe(400);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { accounts: { wallet: string }[]; cursor: string | null } } = await get(
        `${base}/tokens/${mint}/holders/paginated?limit=7${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...page.body.accounts.map((a) => a.wallet));
      cursor = page.body.cursor;
    } while (cursor);
    expect(seen.length).toBe(plain.body.total);
    expect(new Set(seen).size).toBe(seen.length);
    const top = await get<unknown[]>(`${base}/tokens/${mint}/holders/top`);
    expect(top.body.length).toBeLessThanOrEqual(20);
  });

  it('serves ath, bundlers, deployer, top performers, trending and volume lists', async () => {
    const latest = (await get<TokenWithPools[]>(`${base}/tokens/latest`)).body;
    const mint = latest[10]!.token.mint;
    expect((await get<{ highest: number }>(`${base}/tokens/${mint}/ath`)).body.highest).toBeGreaterThan(0);
    const b = await get<{ totalBundlerPercentage: number; wallets: unknown[] }>(`${base}/tokens/${mint}/bundlers`);
    expect(b.body).toMatchObject({ totalBundlerPercentage: expect.any(Number), wallets: expect.any(Array) });
    const dep = await get<{ data: TokenWithPools[]; total: number }>(`${base}/deployer/${latest[10]!.pools[0]!.deployer}`);
    expect(dep.body.data.map((d) => d.token.mint)).toContain(mint);
    expect((await get<unknown[]>(`${base}/top-performers/1h`)).body.length).toBeGreaterThan(0);
    expect((await get(`${base}/top-performers/2h`)).status).toBe(400);
    const trending = await get<{ transactions: number }[]>(`${base}/tokens/trending`);
    const tx = trending.body.map((x) => x.transactions);
    expect([...tx].sort((a, c) => c - a)).toEqual(tx);
    expect((await get<unknown[]>(`${base}/tokens/volume/5m`)).status).toBe(200);
  });

  it('reports market activity per venue with all four windows and changePct', async () => {
    const r = await get<
      {
        market: string;
        label: string;
        stats: Record<string, { transactions: { total: number; buys: number; sells: number; changePct: number }; migrations: { total: number } }>;
      }[]
    >(`${base}/lighthouse`);
    const all = r.body.find((m) => m.market === 'all')!;
    expect(Object.keys(all.stats).sort()).toEqual(['1h', '24h', '5m', '6h']);
    const w = all.stats['1h']!;
    expect(w.transactions.total).toBe(w.transactions.buys + w.transactions.sells);
    expect(all.stats['24h']!.transactions.changePct).toBe(0);
    expect(w.migrations.total).toBeGreaterThan(0);
  });
});

describe('simulator REST: holder chart', () => {
  it('replays the tape into a holder series that ends at the current holder count', async () => {
    const latest = (await get<TokenWithPools[]>(`${base}/tokens/latest`)).body;
    for (const x of latest.slice(0, 5)) {
      const chart = await get<{ points: { time: number; holders: number }[] }>(`${base}/holders/chart?token=${x.token.mint}`);
      const holders = await get<{ total: number }>(`${base}/tokens/${x.token.mint}/holders`);
      expect(chart.body.points.at(-1)!.holders).toBe(holders.body.total);
    }
    expect((await get(`${base}/holders/chart`)).status).toBe(400);
  });
});
