/**
 * The REST ports a running deployment wires: `ctx.data` look-ups and the Datastream client's gap
 * backfill, both through the client's HTTP layer against the real simulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor, isChainpilotError, manualClock } from '../../src/core/index.js';
import { createRestPorts, type RestPorts } from '../../src/runtime/compose/rest-ports.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';

const KEY = 'rest-ports-key-5512';

describe('REST ports of a deployment', () => {
  let sim: RunningSimulator;
  let ports: RestPorts;
  beforeAll(async () => {
    const clock = manualClock(1_767_225_600_000);
    sim = await startSimulator({ seed: 21, port: 0, apiKey: KEY, clock, services: [] });
    clock.advance(5 * 60_000);
    ports = createRestPorts({ baseUrl: sim.urls.base, apiKey: KEY, redactor: createRedactor([KEY]) });
  });
  afterAll(async () => {
    await ports.close();
    await sim.stop();
  });

  it('serves ctx.data look-ups from the service with the key, and the result matches the token the market knows', async () => {
    const latest = (await ports.data.get('/tokens/latest', undefined)) as { token: { mint: string } }[];
    expect(latest.length).toBeGreaterThan(0);
    const known = new Set([...sim.market.tokens()].map((t) => t.mint));
    expect(known.has(latest[0]!.token.mint)).toBe(true);
    const detail = (await ports.data.get(`/tokens/${latest[0]!.token.mint}`, undefined)) as { token: { mint: string } };
    expect(detail.token.mint).toBe(latest[0]!.token.mint);
  });

  it('refuses a relative path with a coded error naming the fix, before any request', async () => {
    const err = await ports.data.get('tokens/latest', undefined).catch((e: unknown) => e);
    expect(isChainpilotError(err, 'API_INVALID_PARAM')).toBe(true);
    expect((err as Error).message).toMatch(/start with "\/"/);
  });

  it('pages a token history for backfill with the opaque cursor until it ends, without repeats', async () => {
    const mint = [...sim.market.tokens()][0]!.mint;
    const seen = new Set<string>();
    let cursor: string | number | undefined;
    let pages = 0;
    for (;;) {
      const page = await ports.backfill.fetchHistoryPage({
        token: mint,
        events: 'all',
        sortDirection: 'asc',
        limit: 50,
        ...(cursor !== undefined ? { cursor } : {}),
      });
      for (const row of page.rows) seen.add(JSON.stringify(row));
      pages++;
      if (!page.hasNextPage || page.nextCursor === undefined) break;
      cursor = page.nextCursor;
    }
    const all = await ports.backfill.fetchHistoryPage({ token: mint, events: 'all', sortDirection: 'asc', limit: 500 });
    expect(all.hasNextPage).toBe(false);
    expect(seen.size).toBe(all.rows.length);
    const full = Math.ceil(all.rows.length / 50);
    expect(pages).toBeGreaterThanOrEqual(Math.max(1, full));
    expect(pages).toBeLessThanOrEqual(full + 1); // a last full page may announce one empty page
  });
});
