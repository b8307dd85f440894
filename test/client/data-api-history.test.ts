import { describe, expect, it } from 'vitest';
import { createTradesHistorySource, isLiquidityRow, type TradeRow } from '../../src/client/data-api/index.js';
import { sendJson, sendText } from './helpers/test-server.js';
import { caught } from './helpers/caught.js';
import { useDataApiServer } from './helpers/data-api-setup.js';

const setup = useDataApiServer();

const liquidity = (tx: string, time: number) => ({
  tx,
  type: 'add_liquidity',
  program: 'venue_a-amm',
  programId: 'Prog',
  instruction: 'deposit',
  pool: 'P',
  wallet: 'W',
  time,
  slot: 10,
  amountBasis: 'transfer',
  tokens: [{ address: 'M', amount: '1.5', amountRaw: '1500000', decimals: 6 }],
  futureField: { kept: true },
});
const swap = (time: number) => ({ type: 'buy', amount: 12, priceUsd: 0.1, volume: 1.2, time, wallet: 'X' });

describe('token data API: trades and liquidity history', () => {
  it('uses the four documented routes', async () => {
    const { server, api } = await setup((_r, res) => sendJson(res, 200, { trades: [], hasNextPage: false, nextCursor: null }));
    await api.getTradesPage({ token: 'M' });
    await api.getTradesPage({ token: 'M', pool: 'P' });
    await api.getTradesPage({ token: 'M', wallet: 'W' });
    await api.getTradesPage({ token: 'M', pool: 'P', wallet: 'W' });
    expect(server.requests.map((r) => r.path)).toEqual(['/trades/M', '/trades/M/P', '/trades/M/by-wallet/W', '/trades/M/P/W']);
  });

  it('iterates to the end, sending the opaque cursor back unchanged with the same scope, events and sortDirection', async () => {
    const opaque = 'eyJ0IjoxNzAwMDAwMDAwMDAwLCJpIjozfQ==+/&=';
    const pages: Record<string, unknown> = {
      '1700000000000': { trades: [liquidity('tx1', 1_700_000_000_001), swap(1_700_000_000_002)], hasNextPage: true, nextCursor: opaque },
      [opaque]: { trades: [liquidity('tx1', 1_700_000_000_002), liquidity('tx2', 1_700_000_000_002)], hasNextPage: true, nextCursor: 'c3' },
      c3: { trades: [liquidity('tx3', 1_700_000_000_009)], hasNextPage: false, nextCursor: null },
    };
    const { server, api } = await setup((r, res) => sendJson(res, 200, pages[r.query.get('cursor') ?? '']));
    const rows: TradeRow[] = [];
    for await (const page of api.iterateTrades(
      { token: 'M', pool: 'P' },
      { events: 'all', sortDirection: 'ASC', limit: 2, cursor: 1_700_000_000_000, enrich: 'identity' },
    ))
      rows.push(...page.trades);
    expect(rows).toHaveLength(5);
    expect(server.requests.map((r) => r.query.get('cursor'))).toEqual(['1700000000000', opaque, 'c3']);
    for (const r of server.requests) {
      expect(r.path).toBe('/trades/M/P');
      expect(r.query.get('events')).toBe('all');
      expect(r.query.get('sortDirection')).toBe('ASC');
      expect(r.query.get('limit')).toBe('2');
      expect(r.query.get('enrich')).toBe('identity');
    }
    const first = rows[0]!;
    expect(isLiquidityRow(first)).toBe(true);
    if (isLiquidityRow(first)) {
      expect(first.time).toBe(1_700_000_000_001);
      expect(first.tokens[0]?.amountRaw).toBe('1500000');
      expect(first['futureField']).toEqual({ kept: true });
    }
    expect(rows[1]?.type).toBe('buy');
  });

  it('serves the Datastream backfill port: lower-case sort, opaque cursor through, rows and next cursor back', async () => {
    const { server, api } = await setup((_r, res) =>
      sendJson(res, 200, { trades: [liquidity('tx9', 1_700_000_000_500)], hasNextPage: true, nextCursor: 'opaque/next' }),
    );
    const source = createTradesHistorySource(api);
    const page = await source.fetchHistoryPage({
      token: 'M',
      wallet: 'W',
      events: 'liquidity',
      sortDirection: 'asc',
      limit: 100,
      cursor: 'opaque/prev',
      enrich: 'identity',
    });
    expect(page.rows).toHaveLength(1);
    expect(page.hasNextPage).toBe(true);
    expect(page.nextCursor).toBe('opaque/next');
    expect(server.requests[0]?.path).toBe('/trades/M/by-wallet/W');
    expect(server.requests[0]?.query.get('sortDirection')).toBe('ASC');
    expect(server.requests[0]?.query.get('cursor')).toBe('opaque/prev');
    expect(server.requests[0]?.query.get('events')).toBe('liquidity');
  });

  it('stops with API_CURSOR_REPEATED when the service hands back a cursor twice', async () => {
    const { api } = await setup((_r, res) => sendJson(res, 200, { trades: [], hasNextPage: true, nextCursor: 'same' }));
    const it = api.iterateTrades({ token: 'M' }, { events: 'liquidity' });
    const e = await caught(
      (async () => {
        for await (const _ of it) {
          /* drain */
        }
      })(),
    );
    expect(e.code).toBe('API_CURSOR_REPEATED');
  });

  it('refuses a page that claims more history but gives no cursor, rather than ending silently', async () => {
    const { api } = await setup((_r, res) => sendJson(res, 200, { trades: [], hasNextPage: true, nextCursor: null }));
    const e = await caught(api.getTradesPage({ token: 'M' }, { events: 'all' }));
    expect(e.code).toBe('HTTP_INVALID_BODY');
    expect(e.context['field']).toBe('nextCursor');
  });

  it('rejects a malformed liquidity row instead of passing it off as an unknown row, and an over-limit page size', async () => {
    const { server, api } = await setup((_r, res) =>
      sendJson(res, 200, { trades: [{ ...liquidity('tx', 1), tokens: [{ address: 'M', amount: '1.5', amountRaw: '1.5', decimals: 6 }] }], hasNextPage: false }),
    );
    expect((await caught(api.getTradesPage({ token: 'M' }, { events: 'liquidity' }))).code).toBe('HTTP_INVALID_BODY');
    expect((await caught(api.getTradesPage({ token: 'M' }, { limit: 501 }))).code).toBe('API_LIMIT_EXCEEDED');
    expect(server.requests).toHaveLength(1);
  });

  it('iterates paginated holders to the end with the cursor', async () => {
    const { server, api } = await setup((r, res) => {
      const c = r.query.get('cursor');
      if (c === null) return sendJson(res, 200, { holders: [{ wallet: 'A' }], total: 2, cursor: 'h2' });
      return sendJson(res, 200, { holders: [{ wallet: 'B' }], total: 2, cursor: null });
    });
    const wallets: string[] = [];
    for await (const page of api.iterateHolders('M', { limit: 5000 })) wallets.push(...(page['holders'] as { wallet: string }[]).map((h) => h.wallet));
    expect(wallets).toEqual(['A', 'B']);
    expect(server.requests.map((r) => r.url)).toEqual(['/tokens/M/holders/paginated?limit=5000', '/tokens/M/holders/paginated?limit=5000&cursor=h2']);
    expect((await caught(api.getHoldersPage('M', { limit: 5001 }))).code).toBe('API_LIMIT_EXCEEDED');
  });
});

describe('token data API: DCA, PnL V2, legacy and wallet routes', () => {
  it('reads DCA programs and retries a DCA token endpoint that answers 408', async () => {
    const { server, api } = await setup((r, res, i) => {
      if (r.path === '/dca/programs') return sendJson(res, 200, { programs: [{ id: 'dca_program_a', label: 'A', programId: 'Dca111' }] });
      if (i === 1) return sendText(res, 408, '', 'text/plain');
      return sendJson(res, 200, { buyers: [] });
    });
    expect(await api.getDcaPrograms()).toEqual([{ id: 'dca_program_a', label: 'A', programId: 'Dca111' }]);
    expect(await api.getDcaTokenBuyers('M', { status: 'active', sortBy: 'volume', limit: 10, program: 'dca_program_a' })).toEqual({ buyers: [] });
    expect(server.requests.map((r) => r.url).slice(1)).toEqual([
      '/dca/token/M/buyers?program=dca_program_a&limit=10&sortBy=volume&status=active',
      '/dca/token/M/buyers?program=dca_program_a&limit=10&sortBy=volume&status=active',
    ]);
    expect((await caught(api.getDcaWallet('W', { status: 'done' as 'all' }))).code).toBe('API_INVALID_PARAM');
  });

  it('sends the documented DCA aliases dex, platform and sort under their own names, one name per parameter', async () => {
    const { server, api } = await setup((_r, res) => sendJson(res, 200, {}));
    await api.getDcaTokenSellers('M', { dex: 'dca_program_a', sort: 'recent' });
    await api.getDcaPair('A', 'B', { platform: 'dca_program_a', sortBy: 'progress' });
    expect(server.requests.map((r) => r.url)).toEqual([
      '/dca/token/M/sellers?dex=dca_program_a&sort=recent',
      '/dca/pair/A/B?platform=dca_program_a&sortBy=progress',
    ]);
    expect((await caught(api.getDcaWallet('W', { program: 'a', dex: 'b' }))).message).toMatch(/dex: is an alias of program/);
    expect((await caught(api.getDcaWallet('W', { sort: 'soonest' as 'recent' }))).code).toBe('API_INVALID_PARAM');
  });

  it('sends pnlMode on the batch and legacy PnL routes', async () => {
    const { server, api } = await setup((_r, res) => sendJson(res, 200, { results: [] }));
    await api.getWalletsBatch(['W1'], { pnlMode: 'raw' });
    await api.getPositionsBatch([{ wallet: 'W', token: 'M' }], { pnlMode: 'adjusted' });
    await api.getTokenPositionsBatch('M', ['W'], { pnlMode: 'strict' });
    await api.getWalletPositionsBatch('W', ['M'], { pnlMode: 'raw' });
    await api.getLegacyWalletPnl('W', { pnlMode: 'adjusted' });
    await api.getLegacyWalletTokenPnl('W', 'M', { pnlMode: 'raw' });
    await api.getLegacyFirstBuyers('M', { pnlMode: 'strict' });
    await api.getLegacyTopTraders(undefined, { pnlMode: 'raw' });
    await api.getLegacyTokenTopTraders('M', { pnlMode: 'adjusted' });
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v2/pnl/wallets/batch?pnlMode=raw',
      '/v2/pnl/positions/batch?pnlMode=adjusted',
      '/v2/pnl/tokens/M/positions/batch?pnlMode=strict',
      '/v2/pnl/wallets/W/positions/batch?pnlMode=raw',
      '/pnl/W?pnlMode=adjusted',
      '/pnl/W/M?pnlMode=raw',
      '/first-buyers/M?pnlMode=strict',
      '/top-traders/all?pnlMode=raw',
      '/top-traders/M?pnlMode=adjusted',
    ]);
    expect((await caught(api.getLegacyWalletPnl('W', { pnlMode: 'loose' as 'raw' }))).code).toBe('API_INVALID_PARAM');
  });

  it('splits PnL batches at 100 wallets, 200 pairs and merges notFound lists', async () => {
    const { server, api } = await setup((r, res) => {
      const body = JSON.parse(r.body) as { wallets?: string[]; pairs?: unknown[]; tokens?: string[] };
      const items = body.wallets ?? body.pairs ?? body.tokens ?? [];
      sendJson(res, 200, { results: items.slice(1), notFound: items.slice(0, 1), invalid: [] });
    });
    const wallets = Array.from({ length: 250 }, (_, i) => `W${i}`);
    const merged = (await api.getWalletsBatch(wallets)) as { results: string[]; notFound: string[] };
    expect(server.requests.map((r) => (JSON.parse(r.body) as { wallets: string[] }).wallets.length)).toEqual([100, 100, 50]);
    expect(merged.notFound).toEqual(['W0', 'W100', 'W200']);
    expect(merged.results).toHaveLength(247);
    await api.getPositionsBatch(Array.from({ length: 201 }, (_, i) => ({ wallet: `W${i}`, token: 'M' })));
    await api.getTokenPositionsBatch('M', wallets);
    await api.getWalletPositionsBatch(
      'W',
      Array.from({ length: 101 }, (_, i) => `T${i}`),
    );
    expect(server.requests.slice(3).map((r) => `${r.path}:${(Object.values(JSON.parse(r.body) as object)[0] as unknown[]).length}`)).toEqual([
      '/v2/pnl/positions/batch:200',
      '/v2/pnl/positions/batch:1',
      '/v2/pnl/tokens/M/positions/batch:200',
      '/v2/pnl/tokens/M/positions/batch:50',
      '/v2/pnl/wallets/W/positions/batch:100',
      '/v2/pnl/wallets/W/positions/batch:1',
    ]);
    expect((await caught(api.getWalletsBatch([]))).code).toBe('API_INVALID_PARAM');
  });

  it('reaches the PnL V2 views, leaderboards, legacy routes and wallet chart at their documented paths', async () => {
    const { server, api } = await setup((_r, res) => sendJson(res, 200, {}));
    await api.getWalletPnl('W', { pnlMode: 'adjusted' });
    await api.getWalletPnlView('W', 'performance');
    await api.getWalletTokenPnl('W', 'M');
    await api.getTokenFirstBuyers('M', { extra: { direction: 'asc' } });
    await api.getLeaderboardTop({ window: 7 });
    await api.getKolLeaderboardPeriod({ start: '2026-01-01', end: '2026-02-01' });
    await api.getLegacyWalletPnl('W');
    await api.getLegacyTopTraders(2);
    await api.getWalletChart('W');
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v2/pnl/wallets/W?pnlMode=adjusted',
      '/v2/pnl/wallets/W/performance',
      '/v2/pnl/wallets/W/tokens/M',
      '/v2/pnl/tokens/M/first-buyers?direction=asc',
      '/v2/pnl/leaderboard/top?window=7',
      '/v2/pnl/leaderboard/kols/period?start=2026-01-01&end=2026-02-01',
      '/pnl/W',
      '/top-traders/all/2',
      '/wallet/W/chart',
    ]);
    expect((await caught(api.getLeaderboardTop({ window: 3 as 7 }))).code).toBe('API_INVALID_PARAM');
  });
});
