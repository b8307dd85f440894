/**
 * The data API and prediction clients against the embedded simulator's REST server: every typed
 * shape parses, cursor iteration walks a token's whole trade and liquidity history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClients, isLiquidityRow, type ServiceClients } from '../../src/client/index.js';
import { KEY, startTestSim, type TestSim } from '../sim/sim-helpers.js';

let t: TestSim;
let clients: ServiceClients<{ dataApi: { url: string }; prediction: { url: string } }>;

beforeAll(async () => {
  t = await startTestSim({ seed: 21 });
  t.clock.advance(20 * 60_000);
  clients = createServiceClients({ apiKey: KEY, dataApi: { url: t.sim.urls.base }, prediction: { url: t.sim.urls.prediction }, timeoutMs: 5000 });
});
afterAll(async () => {
  await clients.close();
  await t.sim.stop();
});

describe('data API client on the simulator', () => {
  it('parses latest tokens, token detail, search, lighthouse, price and chart', async () => {
    const api = clients.dataApi;
    const latest = await api.getLatestTokens();
    expect(latest.length).toBeGreaterThan(0);
    const mint = latest[0]!.token.mint;
    expect((await api.getToken(mint)).token.mint).toBe(mint);
    const found = await api.search({ query: mint });
    expect(found.data.length).toBeGreaterThan(0);
    const lh = await api.getLighthouse();
    expect(lh.some((m) => m.market === 'all')).toBe(true);
    expect(typeof (await api.getPrice(mint)).price).toBe('number');
    const candles = await api.getChart(mint, { type: '1m' });
    for (const c of candles) expect(c.time).toBeLessThan(10_000_000_000); // seconds, not ms
  });

  it('walks a graduated token history to the end with the opaque cursor: small pages give exactly the rows of large pages', async () => {
    const api = clients.dataApi;
    const graduated = (await api.getGraduated({ limit: 500 })) as { token: { mint: string } }[];
    expect(graduated.length).toBeGreaterThan(0);
    const all = async (mint: string, events: 'all' | 'liquidity', limit: number): Promise<string[]> => {
      const out: string[] = [];
      for await (const page of api.iterateTrades({ token: mint }, { events, limit, sortDirection: 'ASC' })) {
        for (const row of page.trades) {
          if (events === 'liquidity') expect(isLiquidityRow(row)).toBe(true);
          out.push(JSON.stringify(row));
        }
      }
      return out;
    };
    let checked = 0;
    for (const g of graduated.slice(0, 3)) {
      const big = await all(g.token.mint, 'all', 500);
      const small = await all(g.token.mint, 'all', 7);
      expect(small).toEqual(big);
      expect(await all(g.token.mint, 'liquidity', 3)).toEqual(await all(g.token.mint, 'liquidity', 500));
      checked += big.length;
    }
    expect(checked).toBeGreaterThan(7);
  });
});

describe('prediction client on the simulator', () => {
  it('iterates /v1/events to the end with typed events', async () => {
    let count = 0;
    for await (const page of clients.prediction.iterateEvents({ limit: 2 })) {
      count += page.data.length;
      for (const e of page.data) expect(['exchange_a', 'exchange_b']).toContain(e.exchange);
    }
    expect(count).toBeGreaterThan(0);
  });

  it('posts the documented {ids} body to /v1/markets/batch and gets those markets back', async () => {
    const page = await clients.prediction.getEvents({ limit: 5 });
    const ids = page.data.flatMap((e) => (e.markets ?? []).map((m) => String(m.id))).slice(0, 3);
    expect(ids.length).toBeGreaterThan(0);
    const got = (await clients.prediction.postMarketsBatch({ ids })) as { data: { id: string }[] };
    expect(got.data.map((m) => m.id)).toEqual(ids);
    await expect(clients.prediction.postMarketsBatch({ ids: [] })).rejects.toThrow(/ids: send 1 to 100 market ids/);
  });
});
