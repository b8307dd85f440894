/**
 * The simulator can run for weeks: every per-token list has a cap, old history ages out, dead
 * tokens and their one-off insider wallets leave, and REST asked about history that left answers
 * with an empty page (never a crash). Small retention knobs and a manual clock keep it fast.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, startTestSim, type TestSim } from './sim-helpers.js';

const HOUR = 3_600_000;
const market = {
  launchesPerHour: 120,
  retailWallets: 80,
  tradeRetentionMs: 600_000,
  tokenRetentionMs: 600_000,
  maxTradesPerToken: 300,
  maxLiquidityPerToken: 12,
  maxLotsPerPosition: 3,
  maxRetiredTokens: 25,
  maxDeployers: 20,
  maxSettledPredictionEvents: 4,
};

let t: TestSim;
let base: string;
const retiredSeen: string[] = [];

beforeAll(async () => {
  t = await startTestSim({ seed: 12, market });
  base = t.sim.urls.base;
  // Two simulated hours in ten-minute steps, noting tokens as they retire.
  for (let i = 0; i < 12; i++) {
    const before = new Set(t.sim.model.state.tokens.keys());
    t.clock.advance(HOUR / 6);
    for (const m of before) if (!t.sim.model.state.tokens.has(m)) retiredSeen.push(m);
  }
}, 90_000);
afterAll(async () => {
  await t.sim.stop();
});

describe('simulator memory bounds', () => {
  it('caps every per-token list and the lists of the whole market', () => {
    const s = t.sim.model.state;
    expect(retiredSeen.length).toBeGreaterThan(market.maxRetiredTokens);
    expect(s.retired.size).toBe(market.maxRetiredTokens);
    expect(s.deployers.length).toBeLessThanOrEqual(market.maxDeployers);
    for (const rows of s.tradesByToken.values()) expect(rows.length).toBeLessThanOrEqual(market.maxTradesPerToken);
    for (const rows of s.liquidityByToken.values()) expect(rows.length).toBeLessThanOrEqual(market.maxLiquidityPerToken);
    for (const t2 of s.tokens.values()) {
      expect(t2.milestones.length).toBeLessThanOrEqual(6);
      for (const p of s.pnl.tokenPositions(t2.mint)) expect(p.lots.length).toBeLessThanOrEqual(market.maxLotsPerPosition);
    }
    // Only tokens still trading or dead for less than tokenRetentionMs remain, with their history.
    for (const tok of s.launched) expect(tok.alive || (tok.diedAt ?? 0) >= s.now - market.tokenRetentionMs - HOUR).toBe(true);
    expect(s.tradesByToken.size).toBeLessThanOrEqual(s.tokens.size);
    // Insider wallets are made per launch and leave with their token.
    const insiders = [...s.wallets.values()].filter((w) => w.role === 'insider').length;
    expect(insiders).toBeLessThanOrEqual(3 * s.tokens.size);
    expect(s.byRole.get('insider')?.length ?? 0).toBe(insiders);
    // Settled up/down prediction events (one per 5-minute window) leave with their markets; ids never repeat.
    const pm = s.prediction!;
    const settled = pm.events.filter((e) => e.crypto?.finalPrice !== undefined);
    expect(pm.made).toBeGreaterThan(20);
    expect(settled.length).toBe(market.maxSettledPredictionEvents);
    expect(new Set(pm.events.map((e) => e.id)).size).toBe(pm.events.length);
    for (const m of pm.markets.values()) expect(pm.events.some((e) => e.id === m.eventId)).toBe(true);
  });

  it('keeps the cost basis exact when PnL lots merge', () => {
    for (const w of t.sim.model.state.pnl.wallets()) {
      for (const p of t.sim.model.state.pnl.walletPositions(w)) {
        expect(p.lots.reduce((a, l) => a + l.raw, 0n)).toBe(p.balanceRaw);
        expect(p.lots.reduce((a, l) => a + l.costLamports, 0n)).toBe(p.costBasisLamports);
      }
    }
  });

  it('answers REST history of a retired token with empty pages, and its detail with a 404 that says why', async () => {
    const mint = [...t.sim.model.state.retired.keys()].at(-1)!;
    const trades = await get<{ trades: unknown[]; hasNextPage: boolean; nextCursor: null }>(`${base}/trades/${mint}?events=all`);
    expect(trades).toMatchObject({ status: 200, body: { trades: [], hasNextPage: false, nextCursor: null } });
    expect((await get<unknown[]>(`${base}/chart/${mint}?type=1m`)).body).toEqual([]);
    expect((await get(`${base}/tokens/${mint}/holders`)).body).toEqual({ total: 0, accounts: [] });
    expect((await get(`${base}/price/history?token=${mint}`)).body).toEqual({ token: mint, history: [] });
    const detail = await get<{ message?: string; error?: string }>(`${base}/tokens/${mint}`);
    expect(detail.status).toBe(404);
    expect(JSON.stringify(detail.body)).toContain('retired');
  });

  it('answers a cursor older than the retained history with an empty last page', async () => {
    const s = t.sim.model.state;
    const [mint] = [...s.tradesByToken.entries()].sort((a, b) => b[1].length - a[1].length)[0]!;
    const oldest = s.tradesByToken.get(mint)![0]!.time;
    const r = await get<{ trades: unknown[]; hasNextPage: boolean; nextCursor: string | null }>(`${base}/trades/${mint}?cursor=${oldest - 1}`);
    expect(r).toMatchObject({ status: 200, body: { trades: [], hasNextPage: false, nextCursor: null } });
  });
});
