import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataApiClient } from '../../src/client/data-api/data-api-client.js';
import { get, KEY, post, startTestSim, type TestSim } from './sim-helpers.js';

type Obj = Record<string, unknown>;
let t: TestSim;
let base: string;
let pred: string;

beforeAll(async () => {
  t = await startTestSim({ seed: 31 });
  base = t.sim.urls.base;
  pred = t.sim.urls.prediction;
  t.clock.advance(20 * 60_000);
});
afterAll(async () => {
  await t.sim.stop();
});

describe('simulator REST: DCA', () => {
  it('lists the one program and serves orders per wallet, order, token side and pair', async () => {
    expect((await get(`${base}/dca/programs`)).body).toEqual({ programs: [{ id: 'dca_program_a', label: expect.any(String), programId: expect.any(String) }] });
    const order = [...t.sim.model.state.dca.values()][0]!;
    const one = await get<Obj>(`${base}/dca/order/${order.address}`);
    expect(one.body).toMatchObject({
      address: order.address,
      wallet: order.wallet,
      outputMint: order.outputMint,
      programId: expect.any(String),
      status: expect.stringMatching(/active|completed/),
    });
    expect(BigInt(one.body['usedRaw'] as string) + BigInt(one.body['remainingRaw'] as string)).toBe(BigInt(one.body['depositedRaw'] as string));
    const wallet = await get<{ orders: Obj[]; summary: { total: number } }>(`${base}/dca/wallet/${order.wallet}`);
    expect(wallet.body.summary.total).toBe(wallet.body.orders.length);
    const buyers = await get<{ orders: Obj[] }>(`${base}/dca/token/${order.outputMint}/buyers?status=all`);
    expect(buyers.body.orders.map((o) => o['address'])).toContain(order.address);
    const pair = await get<{ orders: Obj[] }>(`${base}/dca/pair/${order.inputMint}/${order.outputMint}`);
    expect(pair.body.orders.map((o) => o['address'])).toContain(order.address);
    expect((await get(`${base}/dca/token/${order.outputMint}/buyers?program=other`)).status).toBe(400);
    expect((await get(`${base}/dca/token/${order.outputMint}/buyers?status=frozen`)).status).toBe(400);
  });
});

describe('simulator REST: PnL V2 and legacy', () => {
  it('serves a position whose balance equals the holder amount, in every pnlMode', async () => {
    const tok = t.sim.model.state.launched.find((x) => x.holderList.length > 5)!;
    const holders = await get<{ accounts: { wallet: string; amountRaw: string }[] }>(`${base}/tokens/${tok.mint}/holders`);
    const h = holders.body.accounts[0]!;
    for (const mode of ['strict', 'adjusted', 'raw']) {
      const p = await get<Obj>(`${base}/v2/pnl/wallets/${h.wallet}/tokens/${tok.mint}?pnlMode=${mode}`);
      expect(p.body).toMatchObject({ pnlMode: mode, balanceRaw: h.amountRaw, realizedRaw: expect.stringMatching(/^-?\d+$/) });
      expect(Object.keys(p.body)).toEqual(
        expect.arrayContaining([
          'realized',
          'unrealized',
          'total',
          'buys',
          'sells',
          'totalTrades',
          'roi',
          'balance',
          'costBasis',
          'value',
          'price',
          'totalBought',
          'totalSold',
          'avgBuy',
          'avgSell',
          'timing',
        ]),
      );
    }
    expect((await get(`${base}/v2/pnl/wallets/${h.wallet}?pnlMode=loose`)).status).toBe(400);
    const summary = await get<{ summary: { timing: { avgHoldTimeSecs: number }; winRate: number } }>(`${base}/v2/pnl/wallets/${h.wallet}`);
    expect(summary.body.summary.timing.avgHoldTimeSecs).toEqual(expect.any(Number));
    const legacy = await get<Obj>(`${base}/pnl/${h.wallet}/${tok.mint}`);
    const v2 = await get<Obj>(`${base}/v2/pnl/wallets/${h.wallet}/tokens/${tok.mint}`);
    expect(legacy.body).toEqual(v2.body);
  });

  it('serves GET /wallet/{wallet}/chart through the client: a chart for a trader, and a single point for a wallet that never traded', async () => {
    const api = createDataApiClient({ baseUrl: base, apiKey: KEY });
    const tok = t.sim.model.state.launched.find((x) => x.holderList.length > 5)!;
    const trader = tok.holderList[0]!;
    const chart = (await api.getWalletChart(trader)) as { chartData: { timestamp: number; value: number }[]; pnl: Record<string, { value: number }> };
    expect(chart.chartData.length).toBeGreaterThan(0);
    expect(chart.chartData.map((p) => p.timestamp)).toEqual([...chart.chartData.map((p) => p.timestamp)].sort((a, b) => a - b));
    expect(Object.keys(chart.pnl)).toEqual(['24h', '30d']);
    const idle = (await api.getWalletChart('NeverTraded1111111111111111111111111111111')) as { chartData: unknown[] };
    expect(idle.chartData).toEqual([{ date: expect.any(String), value: 0, timestamp: expect.any(Number), pnlPercentage: 0 }]);
  });

  it('serves token traders, first buyers in order, leaderboards and batches with notFound', async () => {
    const tok = t.sim.model.state.launched.find((x) => x.holderList.length > 5)!;
    const first = await get<{ buyers: { timing: { firstBuy: number } }[] }>(`${base}/v2/pnl/tokens/${tok.mint}/first-buyers`);
    const times = first.body.buyers.map((b) => b.timing.firstBuy);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(first.body.buyers[0]).toMatchObject({ wallet: tok.deployer });
    const traders = await get<{ wallet: string; pnl: number; counts: Obj; timing: Obj }[]>(`${base}/top-traders/${tok.mint}`);
    expect(traders.body[0]).toMatchObject({
      wallet: expect.any(String),
      pnl: expect.any(Number),
      counts: expect.any(Object),
      timing: { firstTrade: expect.any(Number), lastTrade: expect.any(Number) },
    });
    const kols = await get<{ leaderboard: { identity: { tags: string[] } }[] }>(`${base}/v2/pnl/leaderboard/kols`);
    for (const k of kols.body.leaderboard) expect(k.identity.tags).toContain('kol');
    expect((await get(`${base}/v2/pnl/leaderboard/top?window=3`)).status).toBe(400);
    const batch = await post<{ positions: Obj[]; notFound: string[] }>(`${base}/v2/pnl/tokens/${tok.mint}/positions/batch`, {
      wallets: [tok.deployer, 'NoSuchWa11et'],
    });
    expect(batch.body.positions).toHaveLength(1);
    expect(batch.body.notFound).toEqual(['NoSuchWa11et']);
    const wallets = await post<{ truncated: { limit: number } }>(`${base}/v2/pnl/wallets/batch`, { wallets: Array.from({ length: 101 }, () => tok.deployer) });
    expect(wallets.body.truncated.limit).toBe(100);
  });
});

describe('simulator prediction API', () => {
  it('serves events in the envelope with a working cursor and the documented event and market fields', async () => {
    const page1 = await get<{ count: number; data: Obj[]; hasMore: boolean; cursor: string }>(`${pred}/v1/events?status=all&limit=2`);
    expect(page1.body.count).toBe(2);
    expect(page1.body.hasMore).toBe(true);
    const page2 = await get<{ data: Obj[] }>(`${pred}/v1/events?status=all&limit=2&cursor=${page1.body.cursor}`);
    const ids1 = page1.body.data.map((e) => e['id']);
    for (const e of page2.body.data) expect(ids1).not.toContain(e['id']);
    const ev = page1.body.data[0]!;
    expect(Object.keys(ev)).toEqual(
      expect.arrayContaining([
        'exchange',
        'id',
        'marketCount',
        'marketKind',
        'title',
        'category',
        'comboEnabled',
        'comboGroups',
        'createdAt',
        'cryptoUpDown',
        'description',
        'endDate',
        'icon',
        'image',
        'markets',
        'negRisk',
        'openInterest',
        'resolutionSource',
        'slug',
        'startDate',
        'tags',
        'ticker',
        'updatedAt',
        'url',
        'volume',
        'volume24h',
      ]),
    );
    const m = (ev['markets'] as Obj[])[0]!;
    expect(Object.keys(m)).toEqual(
      expect.arrayContaining(['exchange', 'hasDepth', 'id', 'isTradable', 'marketKind', 'outcomes', 'pricingMode', 'slug', 'status', 'title', 'volume']),
    );
    expect((await get(`${pred}/v1/events?limit=501`)).status).toBe(400);
    const bad = await get<Obj>(`${pred}/v1/events?limit=501`);
    expect(bad.body).toMatchObject({ code: 400, errorCode: 'INVALID_PARAMETER', error: expect.stringContaining('limit') });
  });

  it('serves crypto up/down windows, prices, books and candles for a market', async () => {
    const crypto = await get<{
      data: { id: string; cryptoUpDown: { phase: string; priceToBeat: number; finalPrice: number | null; result: string | null } }[];
    }>(`${pred}/v1/crypto/events`);
    const resolved = crypto.body.data.filter((e) => e.cryptoUpDown.phase === 'resolved');
    expect(resolved.length).toBeGreaterThan(0);
    for (const e of resolved) expect(e.cryptoUpDown.result).toBe(e.cryptoUpDown.finalPrice! >= e.cryptoUpDown.priceToBeat ? 'up' : 'down');
    const events = (await get<{ data: { markets: { id: string; outcomes: { price: number }[] }[] }[] }>(`${pred}/v1/events?exchange=exchange_b`)).body.data;
    const market = events[0]!.markets[0]!;
    const price = await get<{ price: number }>(`${pred}/v1/markets/${market.id}/price`);
    expect(price.body.price).toBe(market.outcomes[0]!.price);
    const book = await get<{ bids: { price: number }[]; asks: { price: number }[] }>(`${pred}/v1/markets/${market.id}/orderbook`);
    expect(book.body.bids[0]!.price).toBeLessThan(book.body.asks[0]!.price);
    const spread = await get<{ spread: number }>(`${pred}/v1/markets/${market.id}/spread`);
    expect(spread.body.spread).toBeCloseTo(book.body.asks[0]!.price - book.body.bids[0]!.price, 9);
    expect((await get(`${pred}/v1/markets/${market.id}/candlesticks?interval=1h`)).status).toBe(200);
    expect((await get(`${pred}/v1/markets/${market.id}/candlesticks?interval=7h`)).status).toBe(400);
    expect((await get(`${pred}/v1/markets/nope`)).status).toBe(404);
  });
});

describe('simulator prediction wallet analytics', () => {
  it('serves exchange_b accounts whose positions add up to the leaderboard, and refuses exchange_a wallets', async () => {
    const board = await get<{ data: { address: string; pnl: number; volume: number; trades: number }[] }>(`${pred}/v1/leaderboard/traders`);
    const top = board.body.data[0]!;
    expect(top.trades).toBeGreaterThan(0);
    const open = await get<{ data: { cost: number; pnl: number }[] }>(`${pred}/v1/accounts/${top.address}/positions`);
    const closed = await get<{ data: { cost: number; pnl: number }[] }>(`${pred}/v1/accounts/${top.address}/closed-positions`);
    const all = [...open.body.data, ...closed.body.data];
    expect(all.reduce((a, p) => a + p.cost, 0)).toBeCloseTo(top.volume, 6);
    const pnl = await get<{ realized: number; unrealized: number }>(`${pred}/v1/accounts/${top.address}/pnl`);
    expect(pnl.body.realized + pnl.body.unrealized).toBeCloseTo(top.pnl, 6);
    const fills = await get<{ data: unknown[] }>(`${pred}/v1/accounts/${top.address}/trades`);
    expect(fills.body.data.length).toBe(top.trades);
    const a = await get<{ errorCode: string }>(`${pred}/v1/accounts/${top.address}/overview?exchange=exchange_a`);
    expect(a.status).toBe(400);
    expect(a.body.errorCode).toBe('INVALID_PARAMETER');
  });
});
