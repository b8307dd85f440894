import { afterEach, describe, expect, it } from 'vitest';
import { connect, drain, get, startTestSim, waitFor, type StreamClient, type TestSim } from './sim-helpers.js';

type TokenMsg = { token: { mint: string }; pools: { market: string; poolId: string }[] };

const open: { sims: TestSim[]; clients: StreamClient[] } = { sims: [], clients: [] };
async function sim(opts: Parameters<typeof startTestSim>[0] = {}): Promise<TestSim> {
  const t = await startTestSim(opts);
  open.sims.push(t);
  return t;
}
async function client(t: TestSim, o: Parameters<typeof connect>[1] = {}): Promise<StreamClient> {
  const c = await connect(t, o);
  open.clients.push(c);
  return c;
}
afterEach(async () => {
  for (const c of open.clients.splice(0)) await c.close();
  for (const s of open.sims.splice(0)) await s.sim.stop();
});

describe('simulator Datastream', () => {
  it('refuses a connection whose path carries the wrong key', async () => {
    const t = await sim();
    await expect(connect(t, { key: 'wrong' })).rejects.toThrow(/401/);
  });

  it('streams new tokens on latest after join and stops after leave, keeping the connection open', async () => {
    const t = await sim();
    const c = await client(t);
    await c.join('latest');
    t.clock.advance(60_000);
    await drain(t, [c]);
    const msgs = c.messages('latest');
    expect(msgs.length).toBeGreaterThan(0);
    const rest = (await get<TokenMsg[]>(`${t.sim.urls.base}/tokens/latest`)).body.map((x) => x.token.mint);
    for (const m of msgs) {
      const d = m.data as TokenMsg;
      expect(d.pools[0]!.market).toMatch(/^venue_/);
      expect(rest).toContain(d.token.mint);
    }
    c.leave('latest');
    await waitFor(() => t.sim.stats().rooms === 0);
    const before = c.raw.length;
    t.clock.advance(60_000);
    await c.sync(); // frames pushed during the advance would have arrived before the answer
    expect(c.raw.length).toBe(before);
    expect(c.ws.readyState).toBe(c.ws.OPEN);
  });

  it('streams graduations that REST lists as graduated with graduatedAt in search', async () => {
    const t = await sim();
    const c = await client(t);
    await c.join('graduated');
    t.clock.advance(10 * 60_000);
    await drain(t, [c]);
    const grads = c.messages('graduated').map((m) => m.data as TokenMsg & { graduationTx: string; graduationTime: number });
    expect(grads.length).toBeGreaterThan(0);
    const listed = (await get<TokenMsg[]>(`${t.sim.urls.base}/tokens/multi/graduated?limit=500`)).body.map((x) => x.token.mint);
    const search = (await get<{ data: { mint: string; graduatedAt: number }[] }>(`${t.sim.urls.base}/search?status=graduated&limit=500`)).body.data;
    for (const g of grads) {
      expect(g.pools[0]!.market).toBe('venue_a-amm');
      expect(g.graduationTx).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
      expect(listed).toContain(g.token.mint);
      expect(search.find((s) => s.mint === g.token.mint)?.graduatedAt).toBe(g.graduationTime);
    }
  });

  it('fires a curve alert once per token, on exactly the trade that first reaches the threshold', async () => {
    const t = await sim();
    const c = await client(t);
    await c.join('venue_a:curve:30', 'launchpad:curve:30');
    t.clock.advance(10 * 60_000);
    await drain(t, [c]);
    const alerts = c.messages('venue_a:curve:30').map((m) => m.data as TokenMsg & { tx: string; curvePercentage: number; threshold: number });
    expect(alerts.length).toBeGreaterThan(0);
    expect(new Set(alerts.map((a) => a.token.mint)).size).toBe(alerts.length);
    expect(c.messages('launchpad:curve:30').length).toBeGreaterThanOrEqual(alerts.length);
    for (const a of alerts.slice(0, 5)) {
      const rows = (
        await get<{ trades: { tx: string; type: string; amountRaw: string }[] }>(`${t.sim.urls.base}/trades/${a.token.mint}?sortDirection=ASC&limit=500`)
      ).body.trades;
      // curve fill = net tokens bought from the curve; 30 % of 793.1M tokens (6 decimals)
      const threshold = (793_100_000n * 10n ** 6n * 30n) / 100n;
      let filled = 0n;
      let crossing: string | undefined;
      for (const r of rows) {
        filled += r.type === 'buy' ? BigInt(r.amountRaw) : -BigInt(r.amountRaw);
        if (filled >= threshold) {
          crossing = r.tx;
          break;
        }
      }
      expect(a.tx).toBe(crossing);
      expect(a.threshold).toBe(30);
      expect(a.curvePercentage).toBeGreaterThanOrEqual(30);
    }
  });

  it('delivers one trade through every overlapping room, with the same bytes to every subscriber', async () => {
    const t = await sim();
    t.clock.advance(30_000);
    const tok = t.sim.model.state.active.find((x) => x.status === 'curve' && x.activity > 0.5)!;
    const a = await client(t);
    const b = await client(t);
    await a.join(`transaction:${tok.mint}`, `transaction:${tok.mint}:${tok.curve.poolId}`, `price:token:${tok.mint}`, `price:aggregated:${tok.mint}`);
    await b.join(`transaction:${tok.mint}`);
    t.clock.advance(20_000);
    await drain(t, [a, b]);
    const wide = a.messages(`transaction:${tok.mint}`).map((m) => (m.data as { tx: string }).tx);
    const narrow = a.messages(`transaction:${tok.mint}:${tok.curve.poolId}`).map((m) => (m.data as { tx: string }).tx);
    expect(wide.length).toBeGreaterThan(0);
    expect(narrow).toEqual(wide);
    expect(b.raw).toEqual(a.raw.filter((r) => r.includes(`"room":"transaction:${tok.mint}"`)));
    const agg = a.messages(`price:aggregated:${tok.mint}`)[0]!.data as Record<string, unknown>;
    expect(agg).toMatchObject({ token: tok.mint, price: expect.any(Number), pool: expect.any(String), timestamp: expect.any(Number) });
    expect(agg['aggregated']).toMatchObject({
      median: expect.any(Number),
      average: expect.any(Number),
      min: expect.any(Number),
      max: expect.any(Number),
      poolCount: 1,
    });
    expect((agg['topPools'] as unknown[])[0]).toMatchObject({
      poolId: expect.any(String),
      price: expect.any(Number),
      liquidity: expect.any(Number),
      market: expect.any(String),
    });
  });

  it('pings every interval and drops a client that never answers, keeping one that does', async () => {
    // An interval a loaded machine keeps: the good client answers within one (at 40 ms, a turn held
    // longer than that under load dropped the good client too).
    const t = await sim({ pingIntervalMs: 250 });
    const good = await client(t);
    const silent = await client(t, { answerPings: false });
    const closed = new Promise<void>((resolve) => silent.ws.once('close', () => resolve()));
    await closed;
    expect(silent.raw).toContain('{"type":"ping"}');
    expect(good.ws.readyState).toBe(good.ws.OPEN);
    expect(t.sim.stats().droppedForNoPong).toBe(1);
  });

  it('answers malformed client frames with an error frame and keeps the connection', async () => {
    const t = await sim();
    const c = await client(t);
    c.ws.send('not json');
    await waitFor(() => c.raw.length > 0);
    expect(JSON.parse(c.raw[0]!)).toMatchObject({ type: 'error', code: 'INVALID_MESSAGE' });
    expect(c.ws.readyState).toBe(c.ws.OPEN);
  });

  it('refuses joins beyond 1000 rooms with ROOM_LIMIT and counts them as refused until the client leaves them', async () => {
    const t = await sim();
    const c = await client(t);
    await c.join(...Array.from({ length: 1_000 }, (_, i) => `price:token:M${i}`));
    expect(t.sim.stats()).toMatchObject({ rooms: 1_000, refusedRooms: 0 });
    await c.join('price:token:over', 'holders:over');
    await waitFor(() => c.raw.filter((r) => r.includes('ROOM_LIMIT')).length === 2);
    expect(JSON.parse(c.raw.find((r) => r.includes('ROOM_LIMIT'))!)).toMatchObject({ type: 'error', code: 'ROOM_LIMIT', room: 'price:token:over' });
    // A lockstep driver accounts for every room the client holds: 1000 joined and 2 refused.
    expect(t.sim.stats()).toMatchObject({ rooms: 1_000, refusedRooms: 2 });
    c.leave('holders:over');
    c.leave('price:token:M0');
    await c.sync();
    expect(t.sim.stats()).toMatchObject({ rooms: 999, refusedRooms: 1 });
  });

  it('produces identical frame logs from two runs with one seed', async () => {
    const rooms = ['latest', 'graduated', 'venue_a:curve:50', 'graduating', 'dca:dca_program_a', 'pm:crypto:BTC'];
    const logs: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const t = await sim({ seed: 99 });
      const c = await client(t);
      await c.join(...rooms);
      t.clock.advance(6 * 60_000);
      await drain(t, [c]);
      logs.push([...c.raw]);
      await c.close();
      await t.sim.stop();
    }
    expect(logs[0]!.length).toBeGreaterThan(300);
    expect(logs[1]).toEqual(logs[0]);
  });
});

describe('simulator Datastream back-pressure', () => {
  it('drops a client that stops reading once its unsent bytes pass the limit', async () => {
    const t = await sim({ maxBufferedBytes: 64 * 1024 });
    const slow = await client(t);
    const fast = await client(t);
    await slow.join('graduating', 'latest');
    await fast.join('latest');
    slow.ws.pause();
    const closed = new Promise<void>((resolve) => slow.ws.once('close', () => resolve()));
    for (let i = 0; i < 60 && t.sim.stats().droppedSlow === 0; i++) {
      t.clock.advance(60_000);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(t.sim.stats().droppedSlow).toBe(1);
    slow.ws.resume();
    await closed;
    expect(fast.ws.readyState).toBe(fast.ws.OPEN);
  });
});

describe('simulator Datastream curve rooms', () => {
  it('serves a curve room written with a decimal threshold under its own name', async () => {
    const t = await sim();
    const c = await client(t);
    await c.join('launchpad:curve:20.0');
    t.clock.advance(5 * 60_000);
    await drain(t, [c]);
    const alerts = c.messages('launchpad:curve:20.0');
    expect(alerts.length).toBeGreaterThan(0);
    expect(alerts.every((m) => (m.data as { threshold: number }).threshold === 20)).toBe(true);
  });
});
