import { describe, expect, it } from 'vitest';
import { unixMs, type UnixSeconds } from '../../src/core/index.js';
import { sendJson } from './helpers/test-server.js';
import { caught } from './helpers/caught.js';
import { useDataApiServer } from './helpers/data-api-setup.js';

const setup = useDataApiServer();

const stats = {
  transactions: { total: 1, buys: 1, sells: 0, changePct: 0 },
  wallets: { total: 1, changePct: 0 },
  volume: { total: 2, buys: 2, sells: 0, changePct: 0 },
  tokensCreated: { total: 0, changePct: 0 },
  migrations: { total: 0, changePct: 0 },
};
const token = (mint: string) => ({
  token: { name: 'N', symbol: 'S', mint, extraField: 7 },
  pools: [{ market: 'venue_a', poolId: 'P1', liquidity: { usd: 10.5 }, fancy: true }],
});

describe('token data API: tokens and discovery', () => {
  it('reads latest tokens, token detail, ath and lighthouse with documented fields typed and others kept', async () => {
    const { server, api } = await setup((r, res) => {
      if (r.path === '/tokens/latest') return sendJson(res, 200, [token('M1'), token('M2')]);
      if (r.path === '/tokens/M1') return sendJson(res, 200, { ...token('M1'), risk: { score: 10 }, buys: 3, sells: 1, txns: 4, holders: 9 });
      if (r.path === '/tokens/M1/ath') return sendJson(res, 200, { highest: 0.0123, at: 5 });
      if (r.path === '/lighthouse')
        return sendJson(res, 200, [{ market: 'all', label: 'All', stats: { '5m': stats, '1h': stats, '6h': stats, '24h': stats } }]);
      return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: 'no route' } });
    });
    const latest = await api.getLatestTokens();
    expect(latest.map((t) => t.token.mint)).toEqual(['M1', 'M2']);
    expect(latest[0]?.token['extraField']).toBe(7);
    expect(latest[0]?.pools[0]?.['fancy']).toBe(true);
    const detail = await api.getToken('M1');
    expect(detail.holders).toBe(9);
    expect((await api.getAth('M1')).highest).toBe(0.0123);
    const lh = await api.getLighthouse();
    expect(lh[0]?.stats['24h'].volume.total).toBe(2);
    expect(server.requests.every((r) => r.headers['x-api-key'] === 'data-key-1234')).toBe(true);
  });

  it('sends every search parameter in its documented form', async () => {
    const { server, api } = await setup((_r, res) =>
      sendJson(res, 200, { data: [{ riskScore: 3, graduatedAt: 1_700_000_000_123, communityMessages: 2, hasCoinCommunity: true }] }),
    );
    const out = await api.search({
      query: 'doge',
      launchpad: ['venue_a', 'venue_c'],
      market: ['venue_a-amm'],
      status: 'graduated',
      minCurvePercentage: 10,
      maxCurvePercentage: 90,
      minGraduatedAt: unixMs(1_700_000_000_000),
      hasSocials: true,
      hasCoinCommunity: false,
      minCommunityMessages: 1,
      maxCommunityMessages: 5,
      sortBy: 'communityMessages',
      sortOrder: 'desc',
      limit: 100,
      format: 'full',
    });
    expect(out.data[0]?.graduatedAt).toBe(1_700_000_000_123);
    const q = server.requests[0]?.query;
    expect(q?.get('launchpad')).toBe('venue_a,venue_c');
    expect(q?.get('market')).toBe('venue_a-amm');
    expect(q?.get('hasCoinCommunity')).toBe('false');
    expect(q?.get('minGraduatedAt')).toBe('1700000000000');
    expect(q?.get('format')).toBe('full');
    expect(q?.get('sortBy')).toBe('communityMessages');
  });

  it('enforces documented limits before sending: search full format 100, graduating 500, curve percentages, timeframes', async () => {
    const { server, api } = await setup((_r, res) => sendJson(res, 200, { data: [] }));
    expect((await caught(api.search({ format: 'full', limit: 101 }))).code).toBe('API_LIMIT_EXCEEDED');
    expect((await caught(api.getGraduating({ limit: 501 }))).context).toMatchObject({ field: 'limit', limit: 500, got: 501 });
    expect((await caught(api.search({ maxCurvePercentage: 120 }))).code).toBe('API_INVALID_PARAM');
    expect((await caught(api.getTopPerformers('2h' as '1h'))).code).toBe('API_INVALID_PARAM');
    expect((await caught(api.getDeployerTokens('W', { format: 'full', limit: 500 }))).code).toBe('API_LIMIT_EXCEEDED');
    expect(server.requests).toHaveLength(0);
    await api.getGraduating({ limit: 500, minCurve: 40, markets: ['venue_a'], reduceSpam: true });
    expect(server.requests[0]?.url).toBe('/tokens/multi/graduating?limit=500&minCurve=40&markets=venue_a&reduceSpam=true');
  });

  it('splits POST /tokens/multi into requests of 20 and merges the results in order', async () => {
    const { server, api } = await setup((r, res) =>
      sendJson(
        res,
        200,
        (JSON.parse(r.body) as string[]).map((m) => token(m)),
      ),
    );
    const mints = Array.from({ length: 45 }, (_, i) => `M${i}`);
    const merged = (await api.getTokens(mints)) as { token: { mint: string } }[];
    expect(server.requests.map((r) => (JSON.parse(r.body) as string[]).length)).toEqual([20, 20, 5]);
    expect(merged.map((t) => t.token.mint)).toEqual(mints);
  });

  it('splits multi-price reads at 100 tokens for GET and POST', async () => {
    const { server, api } = await setup((r, res) => {
      const tokens = r.method === 'GET' ? (r.query.get('tokens') ?? '').split(',') : (JSON.parse(r.body) as { tokens: string[] }).tokens;
      sendJson(res, 200, Object.fromEntries(tokens.map((t) => [t, { price: 1 }])));
    });
    const tokens = Array.from({ length: 250 }, (_, i) => `T${i}`);
    const got = (await api.getPrices(tokens)) as Record<string, unknown>;
    expect(Object.keys(got)).toHaveLength(250);
    const posted = (await api.postPrices(tokens.slice(0, 101))) as Record<string, unknown>;
    expect(Object.keys(posted)).toHaveLength(101);
    expect(
      server.requests.map(
        (r) =>
          `${r.method}:${r.method === 'GET' ? (r.query.get('tokens') ?? '').split(',').length : (JSON.parse(r.body) as { tokens: string[] }).tokens.length}`,
      ),
    ).toEqual(['GET:100', 'GET:100', 'GET:50', 'POST:100', 'POST:1']);
  });

  it('reads charts with Unix-second candle times, pool charts, and refuses millisecond times', async () => {
    const { server, api } = await setup((_r, res) => sendJson(res, 200, [{ time: 1_700_000_000, open: 1, high: 2, low: 0.5, close: 1.5, volume: 100 }]));
    const candles = await api.getChart('M', {
      type: '1m',
      timeFrom: 1_700_000_000 as UnixSeconds,
      timeTo: 1_700_000_600 as UnixSeconds,
      removeOutliers: false,
      currency: 'sol',
      pool: 'P',
    });
    expect(candles[0]?.time).toBe(1_700_000_000);
    expect(server.requests[0]?.url).toBe('/chart/M/P?type=1m&time_from=1700000000&time_to=1700000600&removeOutliers=false&currency=sol');
    const e = await caught(api.getChart('M', { timeFrom: 1_700_000_000_000 as UnixSeconds }));
    expect(e.code).toBe('API_INVALID_PARAM');
    expect(e.message).toMatch(/milliseconds/);
    await api.getPriceRange('M', 100 as UnixSeconds, 200 as UnixSeconds);
    expect(server.requests[1]?.url).toBe('/price/history/range?token=M&time_from=100&time_to=200');
  });

  it('reports a response that breaks the documented shape as HTTP_INVALID_BODY naming the field', async () => {
    const { api } = await setup((_r, res) => sendJson(res, 200, [{ time: 'yesterday', open: 1, high: 1, low: 1, close: 1, volume: 1 }]));
    const e = await caught(api.getChart('M'));
    expect(e.code).toBe('HTTP_INVALID_BODY');
    expect(e.context['field']).toBe('0.time');
  });

  it('gives up on a persistent SERVER_ERROR after the retry budget, keeping the service code', async () => {
    const { server, api } = await setup((_r, res) => sendJson(res, 500, { error: { code: 'SERVER_ERROR', message: 'Internal server error' } }));
    const e = await caught(api.getLatestTokens());
    expect(e.code).toBe('HTTP_SERVER_ERROR');
    expect(e.context).toMatchObject({ status: 500, apiCode: 'SERVER_ERROR', apiMessage: 'Internal server error', attempts: 4 });
    expect(server.requests).toHaveLength(4);
  });
});
