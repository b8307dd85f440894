import { afterEach, describe, expect, it } from 'vitest';
import { createPredictionClient, type PredictionClient, type PredictionEvent } from '../../src/client/prediction/index.js';
import { seededRandom } from '../../src/core/index.js';
import { jumpClock, sendJson, startServer, type Handler, type TestServer } from './helpers/test-server.js';
import { caught } from './helpers/caught.js';

let server: TestServer | undefined;
let pm: PredictionClient | undefined;
afterEach(async () => {
  await pm?.close();
  await server?.close();
  pm = undefined;
  server = undefined;
});

async function setup(handler: Handler) {
  server = await startServer(handler);
  pm = createPredictionClient({ baseUrl: server.url, apiKey: 'pm-key-5678', clock: jumpClock(), random: seededRandom(9), timeoutMs: 2000 });
  return { server, pm };
}

const market = {
  exchange: 'exchange_b',
  hasDepth: true,
  id: 'mkt-1',
  isTradable: true,
  marketKind: 'combo',
  outcomes: [
    { label: 'Yes', price: 0.42 },
    { label: 'No', price: 0.58 },
  ],
  pricingMode: 'orderbook',
  slug: 'will-it',
  status: 'open',
  title: 'Will it?',
  volume: 1234.5,
  legCount: 2,
  legs: [
    { label: 'Team A wins', side: 'yes', sport: 'football' },
    { label: 'Over 2.5', side: 'no' },
  ],
  clobTokenIds: ['1', '2'],
  somethingNew: 'kept',
};
const event = (id: string): PredictionEvent => ({
  exchange: 'exchange_b',
  id,
  marketCount: 1,
  marketKind: 'combo',
  comboEnabled: true,
  comboGroups: [
    {
      id: 'g1',
      label: 'Main',
      lines: [{ marketId: 'mkt-1', line: 2.5, selections: [{ label: 'Over', outcomeIndex: 0, price: 0.5, selectable: true, tokenId: 't1' }] }],
    },
  ],
  cryptoUpDown: { asset: 'BTC', phase: 'upcoming', priceToBeat: 65000.5, finalPrice: null },
  markets: [market],
  negRisk: false,
  volume: 10,
});

describe('prediction-markets client', () => {
  it('iterates /v1/events through the envelope cursor to the end with typed events, combo groups, crypto windows and legs', async () => {
    const pages: Record<string, unknown> = {
      '': { count: 2, data: [event('e1'), event('e2')], hasMore: true, cursor: 'p2' },
      p2: { count: 1, data: [event('e3')], hasMore: false, cursor: null },
    };
    const { server, pm } = await setup((r, res) => sendJson(res, 200, pages[r.query.get('cursor') ?? '']));
    const ids: (string | number)[] = [];
    let first: PredictionEvent | undefined;
    for await (const page of pm.iterateEvents({ exchange: 'xb', marketKind: 'combo', limit: 2, extra: { status: 'active' } })) {
      first ??= page.data[0];
      ids.push(...page.data.map((e) => e.id));
    }
    expect(ids).toEqual(['e1', 'e2', 'e3']);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v1/events?status=active&marketKind=combo&limit=2&exchange=xb',
      '/v1/events?status=active&marketKind=combo&limit=2&cursor=p2&exchange=xb',
    ]);
    expect(server.requests[0]?.headers['x-api-key']).toBe('pm-key-5678');
    expect(first?.comboGroups?.[0]?.lines[0]?.selections[0]?.price).toBe(0.5);
    expect(first?.cryptoUpDown?.priceToBeat).toBe(65000.5);
    expect(first?.markets?.[0]?.legs?.[1]?.side).toBe('no');
    expect(first?.markets?.[0]?.['somethingNew']).toBe('kept');
  });

  it('checks the events limit range 0..500 and the exchange name before sending', async () => {
    const { server, pm } = await setup((_r, res) => sendJson(res, 200, { count: 0, data: [], hasMore: false, cursor: '' }));
    expect((await caught(pm.getEvents({ limit: 501 }))).code).toBe('PREDICTION_INVALID_PARAM');
    expect((await caught(pm.getEvents({ limit: -1 }))).code).toBe('PREDICTION_INVALID_PARAM');
    expect((await caught(pm.getNewMarkets({ exchange: 'exchange_c' as 'xb' }))).code).toBe('PREDICTION_INVALID_PARAM');
    expect(server.requests).toHaveLength(0);
    expect((await pm.getEvents({ limit: 0 })).count).toBe(0);
  });

  it('turns the prediction error body into a typed error that keeps the status and errorCode', async () => {
    const { server, pm } = await setup((_r, res) => sendJson(res, 404, { code: 404, error: 'market not found', errorCode: 'MARKET_NOT_FOUND' }));
    const e = await caught(pm.getMarket('nope'));
    expect(e.code).toBe('HTTP_CLIENT_ERROR');
    expect(e.context).toMatchObject({ status: 404, apiCode: 'MARKET_NOT_FOUND', apiMessage: 'market not found', bodyCode: 404 });
    expect(server.requests).toHaveLength(1);
  });

  it('refuses exchange_a wallet analytics without a request and routes exchange_b ones', async () => {
    const { server, pm } = await setup((_r, res) => sendJson(res, 200, { points: [] }));
    const e = await caught(pm.getAccount('Addr', 'positions', { exchange: 'exchange_a' }));
    expect(e.code).toBe('PREDICTION_NO_PUBLIC_WALLETS');
    expect(server.requests).toHaveLength(0);
    await pm.getAccount('Addr', 'pnl/chart', { exchange: 'exchange_b' });
    expect(server.requests[0]?.url).toBe('/v1/accounts/Addr/pnl/chart?exchange=exchange_b');
  });

  it('reaches markets, books, crypto, taxonomy and leaderboard routes at their documented paths', async () => {
    const { server, pm } = await setup((r, res) => sendJson(res, 200, r.path.startsWith('/v1/markets/slug') ? market : {}));
    expect((await pm.getMarketBySlug('will-it')).outcomes[0]?.price).toBe(0.42);
    await pm.getMarketView('TICK', 'candlesticks', { interval: '1h' });
    await pm.getMarketView('TICK', 'quote');
    await pm.searchMarkets('election', { exchange: 'exchange_a' });
    await pm.getTrendingMarkets({ limit: 5 });
    await pm.getTaxonomy('sports');
    await pm.getEventCrypto('ev1');
    await pm.getLeaderboard('pnl', { eventId: 'ev1' });
    await pm.getLeaderboard('traders');
    await pm.postMarketsBatch({ ids: ['a', 'b'] }, { exchange: 'xb' });
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /v1/markets/slug/will-it',
      'GET /v1/markets/TICK/candlesticks?interval=1h',
      'GET /v1/markets/TICK/quote',
      'GET /v1/markets/search?q=election&exchange=exchange_a',
      'GET /v1/markets/trending?limit=5',
      'GET /v1/sports',
      'GET /v1/events/ev1/crypto',
      'GET /v1/events/ev1/leaderboard/pnl',
      'GET /v1/leaderboard/traders',
      'POST /v1/markets/batch?exchange=xb',
    ]);
    expect(server.requests.at(-1)?.body).toBe('{"ids":["a","b"]}');
  });
});
