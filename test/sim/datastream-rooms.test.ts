import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, drain, get, startTestSim, type StreamClient, type TestSim } from './sim-helpers.js';

type Obj = Record<string, unknown>;
let t: TestSim;
let c: StreamClient;
let mint: string;
let pool: string;
let wallet: string;

beforeAll(async () => {
  t = await startTestSim({ seed: 12 });
  t.clock.advance(8 * 60_000);
  const g = t.sim.model.state.launched.filter((x) => x.status === 'graduated' && x.alive).sort((a, b) => b.activity - a.activity)[0]!;
  mint = g.mint;
  pool = g.amm!.poolId;
  wallet = g.deployer;
  c = await connect(t);
  await c.join(
    `liquidity:${mint}`,
    `liquidity:pool:${pool}`,
    `liquidity:${mint}:enriched`,
    `transaction:${mint}:enriched`,
    `stats:token:${mint}:total`,
    `volume:pool:${pool}`,
    `holders:${mint}`,
    `top10:${mint}`,
    'dca:dca_program_a',
    'dca:dca_program_a:filled',
    'dca:dca_program_a:position',
    'pm:crypto:BTC',
    `graduating:venue_a:30`,
  );
  const busiest = t.sim.model.state.launched.filter((x) => x.alive && x.status === 'curve').sort((a, b) => b.activity - a.activity)[0]!;
  const trader = busiest.holderList[0]!;
  wallet = trader;
  await c.join(`pnl:${trader}`, `pnl:${trader}:summary`);
  t.clock.advance(12 * 60_000);
  await drain(t, [c]);
});
afterAll(async () => {
  await c.close();
  await t.sim.stop();
});

describe('simulator Datastream rooms', () => {
  it('sends liquidity events as arrays of spec-shaped events to every matching room, enriched on request', () => {
    const byToken = c.messages(`liquidity:${mint}`);
    const byPool = c.messages(`liquidity:pool:${pool}`);
    expect(byToken.length).toBeGreaterThan(0);
    expect(byPool.map((m) => m.data)).toEqual(byToken.map((m) => m.data));
    const e = (byToken[0]!.data as Obj[])[0]!;
    expect(Array.isArray(byToken[0]!.data)).toBe(true);
    expect(Object.keys(e).sort()).toEqual(
      ['amountBasis', 'instruction', 'pool', 'program', 'programId', 'slot', 'time', 'tokens', 'tx', 'type', 'wallet'].sort(),
    );
    const enriched = (c.messages(`liquidity:${mint}:enriched`)[0]!.data as Obj[])[0]!;
    expect(enriched).toHaveProperty('identity');
  });

  it('sends enriched swaps, stats, volume, holders and top-10 updates for a token', async () => {
    const swaps = c.messages(`transaction:${mint}:enriched`);
    expect(swaps.length).toBeGreaterThan(0);
    // the service's shape: an array of swaps whose token is a {from, to} pair, the traded mint on the non-quote side
    const [swap] = swaps[0]!.data as { identity: unknown; type: string; token: { from: { address: string }; to: { address: string } } }[];
    expect(swap).toHaveProperty('identity');
    expect(swap!.type === 'buy' ? swap!.token.to.address : swap!.token.from.address).toBe(mint);
    const stats = c.messages(`stats:token:${mint}:total`).at(-1)!.data as { txns: number; buys: number; sells: number };
    expect(stats.txns).toBe(stats.buys + stats.sells);
    expect(c.messages(`volume:pool:${pool}`).length).toBe(swaps.length);
    const holders = c.messages(`holders:${mint}`).map((m) => m.data as { total: number; previous: number | null });
    for (let i = 1; i < holders.length; i++) {
      expect(holders[i]!.previous).toBe(holders[i - 1]!.total);
      expect(holders[i]!.total).not.toBe(holders[i]!.previous);
    }
    const rest = await get<{ total: number }>(`${t.sim.urls.base}/tokens/${mint}/holders`);
    expect(holders.at(-1)!.total).toBe(rest.body.total);
  });

  it('sends DCA events with full orders to the global and event-type rooms, and positions without eventName', () => {
    const all = c.messages('dca:dca_program_a').map((m) => m.data as { eventName: string; order: Obj });
    const filled = c.messages('dca:dca_program_a:filled').map((m) => m.data);
    expect(all.length).toBeGreaterThan(0);
    expect(filled).toEqual(all.filter((e) => e.eventName === 'filled'));
    expect(all[0]!.order).toMatchObject({ address: expect.any(String), programId: expect.any(String), status: expect.any(String) });
    const pos = c.messages('dca:dca_program_a:position')[0]!.data as Obj;
    expect(pos).not.toHaveProperty('eventName');
    expect(pos).toMatchObject({ order: expect.any(Object), writeVersion: expect.any(Number) });
  });

  it('sends PnL trade updates and summaries for a wallet, and oracle ticks every simulated second', () => {
    const updates = c.messages(`pnl:${wallet}`).map((m) => m.data as { type: string; position: { realizedRaw: string } });
    expect(updates.length).toBeGreaterThan(0);
    expect(updates[0]!.type).toBe('tradeUpdate');
    expect(c.messages(`pnl:${wallet}:summary`)[0]!.data).toMatchObject({ type: 'summary', summary: expect.any(Object) });
    const ticks = c.messages('pm:crypto:BTC').map((m) => (m.data as { timestamp: number }).timestamp);
    expect(ticks.length).toBe(12 * 60);
    expect(ticks[1]! - ticks[0]!).toBe(1000);
  });

  it('sends graduating tokens of the market only once they hold at least the requested SOL', () => {
    const g = c.messages('graduating:venue_a:30').map((m) => m.data as { pools: { market: string; curve: { realSolReserves: string } }[] });
    expect(g.length).toBeGreaterThan(0);
    for (const d of g) {
      expect(d.pools[0]!.market).toBe('venue_a');
      expect(BigInt(d.pools[0]!.curve.realSolReserves)).toBeGreaterThanOrEqual(30_000_000_000n);
    }
  });
});
