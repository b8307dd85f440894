import { afterEach, describe, expect, it } from 'vitest';
import { connect, drain, get, KEY, startTestSim, waitFor, type StreamClient, type TestSim } from './sim-helpers.js';

const open: { sims: TestSim[]; clients: StreamClient[] } = { sims: [], clients: [] };
async function sim(opts: Parameters<typeof startTestSim>[0]): Promise<TestSim> {
  const t = await startTestSim(opts);
  open.sims.push(t);
  return t;
}
afterEach(async () => {
  for (const c of open.clients.splice(0)) await c.close();
  for (const s of open.sims.splice(0)) await s.sim.stop();
});

describe('simulator faults', () => {
  it('answers 429 with Retry-After and the error body when rate limiting is on', async () => {
    const t = await sim({ faults: { rest: { rateLimitShare: 1, retryAfterSeconds: 2 } } });
    const r = await get<{ error: { code: string } }>(`${t.sim.urls.base}/tokens/latest`);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('2');
    expect(r.body.error.code).toBe('RATE_LIMITED');
  });

  it('answers 5xx with SERVER_ERROR on the token API and the prediction error shape on the prediction API', async () => {
    const t = await sim({ faults: { rest: { serverErrorShare: 1 } } });
    const r = await get<{ error: { code: string; message: string } }>(`${t.sim.urls.base}/tokens/latest`);
    expect([500, 503]).toContain(r.status);
    expect(r.body.error).toEqual({ code: 'SERVER_ERROR', message: 'Internal server error' });
    const p = await get<{ code: number; error: string; errorCode: string }>(`${t.sim.urls.prediction}/v1/events`);
    expect(p.body).toEqual({ code: p.status, error: 'Internal server error', errorCode: 'SERVER_ERROR' });
  });

  it('draws REST faults from the seed: the same seed gives the same statuses', async () => {
    const statuses: number[][] = [];
    for (let i = 0; i < 2; i++) {
      const t = await sim({ seed: 5, faults: 'chaos' });
      const row: number[] = [];
      for (let k = 0; k < 30; k++) row.push((await get(`${t.sim.urls.base}/lighthouse`)).status);
      statuses.push(row);
    }
    expect(statuses[0]!.some((s) => s !== 200)).toBe(true);
    expect(statuses[0]!.some((s) => s === 200)).toBe(true);
    expect(statuses[1]).toEqual(statuses[0]);
  });

  it('refuses Datastream connections with the right key when key refusal is on', async () => {
    const t = await sim({ faults: { stream: { refuseKeyShare: 1 } } });
    await expect(connect(t, { key: KEY })).rejects.toThrow(/401/);
  });

  it('drops a connected socket within a simulated second when drops are certain', async () => {
    const t = await sim({ faults: { stream: { dropSocketPerSecond: 1 } } });
    const c = await connect(t);
    open.clients.push(c);
    const closed = new Promise<void>((resolve) => c.ws.once('close', () => resolve()));
    t.clock.advance(1_000);
    await closed;
    expect(t.sim.stats().clients).toBe(0);
  });

  it('silences a socket: it stays open but gets no frames and no pong', async () => {
    const t = await sim({ faults: { stream: { silenceSocketPerSecond: 1 } } });
    const c = await connect(t);
    open.clients.push(c);
    await c.join('latest', 'pm:crypto:BTC');
    t.clock.advance(1_000);
    const before = c.raw.length;
    const sentBefore = t.sim.stats().framesSent;
    t.clock.advance(60_000);
    expect(t.sim.stats().framesSent).toBe(sentBefore);
    const rooms = t.sim.stats().rooms;
    c.ws.send('{"type":"ping"}');
    c.ws.send('{"type":"join","room":"graduated"}');
    // The server handles frames in order: once the join took effect it has handled the ping, and a
    // pong would have counted in framesSent.
    await waitFor(() => t.sim.stats().rooms === rooms + 1);
    expect(t.sim.stats().framesSent).toBe(sentBefore);
    expect(c.raw.length).toBe(before);
    expect(c.ws.readyState).toBe(c.ws.OPEN);
  });

  it('sends one truncated JSON frame per simulated second when malformed frames are certain', async () => {
    const t = await sim({ faults: { stream: { malformedFramePerSecond: 1 } } });
    const c = await connect(t);
    open.clients.push(c);
    t.clock.advance(3_000);
    await drain(t, [c]);
    const bad = c.raw.filter((r) => {
      try {
        JSON.parse(r);
        return false;
      } catch {
        return true;
      }
    });
    expect(bad.length).toBe(3);
  });

  it('streams provisional liquidity events that never reach REST history (a fork)', async () => {
    const t = await sim({ seed: 8, faults: { liquidityForkShare: 1 } });
    t.clock.advance(10 * 60_000);
    const graduated = t.sim.model.state.launched.filter((x) => x.status === 'graduated');
    expect(graduated.length).toBeGreaterThan(0);
    const c = await connect(t);
    open.clients.push(c);
    await c.join(...graduated.map((g) => `liquidity:${g.mint}`));
    t.clock.advance(10 * 60_000);
    await drain(t, [c]);
    const streamed = c.messages().flatMap((m) => (m.data as { tx: string; pool: string }[]).map((e) => ({ ...e, room: m.room! })));
    expect(streamed.length).toBeGreaterThan(0);
    for (const e of streamed.slice(0, 10)) {
      const mint = e.room.slice('liquidity:'.length);
      const rest = await get<{ trades: { tx: string }[] }>(`${t.sim.urls.base}/trades/${mint}?events=liquidity&limit=500`);
      expect(rest.body.trades.length).toBeGreaterThan(0); // the canonical migration deposit is there
      expect(rest.body.trades.map((r) => r.tx)).not.toContain(e.tx);
    }
  });
});
