/**
 * `download --lists window` pages its two searches (the window's graduations, the launches up to its
 * end): a window with more tokens than a page still has every one of them, and a window that ended
 * pages ago (launches after it come first, newest first) is reached. Against the embedded simulator's
 * REST search, with pages of a few rows standing in for the service's 500.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataApiClient, type DataApiClient } from '../../src/client/data-api/index.js';
import { manualClock, type UnixMs } from '../../src/core/index.js';
import { createRequestPacer } from '../../src/research/download/request-pacer.js';
import { selectTokens } from '../../src/research/download/select-tokens.js';
import { DEFAULT_SIM_START } from '../../src/research/record/record-sim.js';
import { startSimulator } from '../../src/sim/start-simulator.js';

const START = DEFAULT_SIM_START;
const MIN = 60_000;
let sim: Awaited<ReturnType<typeof startSimulator>>;
let api: DataApiClient;

beforeAll(async () => {
  const clock = manualClock(START as UnixMs);
  const apiKey = randomBytes(16).toString('hex');
  sim = await startSimulator({ seed: 5, clock, startAt: START as UnixMs, apiKey, services: [] });
  for (let t = 0; t < 30 * MIN; t += 1_000) clock.advance(1_000);
  api = createDataApiClient({ baseUrl: sim.urls.base, apiKey });
}, 60_000);
afterAll(async () => {
  await api.close();
  await sim.stop();
});

const select = (fromMs: number, toMs: number, windowPage: number): Promise<string[]> =>
  selectTokens(api, createRequestPacer({ perSec: 10_000 }), { mints: [], lists: ['window'], maxTokens: 10_000, fromMs, toMs, windowPage });

/** Every token the simulator launched up to `toMs` and every one graduated in the window (one search of them all). */
async function truth(fromMs: number, toMs: number): Promise<string[]> {
  // fewer than 500 launches in 30 simulated minutes: one page holds them all (checked below)
  const all = (await api.search({ sortBy: 'createdAt', sortOrder: 'desc', limit: 500 })).data;
  const mint = (r: Record<string, unknown>): string => String((r['token'] as { mint?: string } | undefined)?.mint ?? r['mint']);
  const grad = (r: Record<string, unknown>): number | null => (typeof r['graduatedAt'] === 'number' ? r['graduatedAt'] : null);
  expect(all.length).toBeLessThan(500);
  return all
    .filter((r) => (r['createdAt'] as number) <= toMs || ((grad(r) ?? -1) >= fromMs && (grad(r) ?? Infinity) <= toMs))
    .map(mint)
    .sort();
}

describe('download --lists window selection', () => {
  it('pages past a full page: every token launched in the window, the same as one page of 500', async () => {
    const to = START + 30 * MIN;
    const whole = await select(START, to, 500);
    const paged = await select(START, to, 7);
    expect(whole.length).toBeGreaterThan(7 * 4);
    expect([...paged].sort()).toEqual([...whole].sort());
    expect([...paged].sort()).toEqual(await truth(START, to));
  });

  it('reaches a window that ended pages of launches ago, and leaves out the launches after it', async () => {
    const to = START + 10 * MIN;
    const expected = await truth(START, to);
    const later = (await truth(START, START + 30 * MIN)).length - expected.length;
    expect(later).toBeGreaterThan(3 * 7); // more than three pages of launches after the window
    expect([...(await select(START, to, 7))].sort()).toEqual(expected);
  });
});
