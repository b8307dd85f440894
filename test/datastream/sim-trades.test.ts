/**
 * Paper fidelity: the simulator streams swaps in the service's shape (an array of swaps with the
 * `{from, to}` token pair) and a strategy's `onTrade` fires with the traded token and side.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDatastreamClient, type DatastreamClient } from '../../src/client/datastream/index.js';
import { seededRandom, systemClock, lamports } from '../../src/core/index.js';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import type { SwapTraded } from '../../src/engine/events/events.js';
import { createMarketView } from '../../src/engine/market/market-view.js';
import { defineStrategy } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { createPaperExecutor } from '../../src/executors/paper/paper-executor.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';
import { waitFor } from './helpers/stream-server.js';

const KEY = 'sim-trades-key-1';
let sim: RunningSimulator | undefined;
let client: DatastreamClient | undefined;
let engine: Engine | undefined;

afterEach(async () => {
  await engine?.stop();
  client?.close();
  await sim?.stop();
  engine = client = sim = undefined;
});

describe('swaps on the simulator', () => {
  it('reach a strategy at onTrade with the traded token, side and amount, and nothing is rejected', async () => {
    sim = await startSimulator({ seed: 11, speed: 'max', apiKey: KEY });
    const clock = systemClock();
    client = createDatastreamClient({ url: sim.urls.datastream, apiKey: KEY, clock, random: seededRandom(2) });
    const trades: SwapTraded[] = [];
    const watched = new Set<string>();
    const tape = defineStrategy({
      id: 'tape',
      params: z.strictObject({}),
      rooms: () => ['latest'],
      onLaunch(e, ctx) {
        if (watched.size >= 5) return;
        watched.add(e.mint);
        ctx.watch(`transaction:${e.mint}`, { ttlMs: 60_000 });
      },
      onTrade: (e) => void trades.push(e),
    });
    engine = createEngine({
      feed: client,
      executor: createPaperExecutor({ clock, market: createMarketView(), latencyMs: 1 }),
      clock,
      random: seededRandom(1),
      strategies: [instantiateStrategy(tape, {})],
      risk: { maxOpenPositions: 1 },
      startingCashLamports: 1_000_000_000n,
      execution: { slippageBps: 100, priorityFeeLamports: lamports(0n), defaultDecimals: 6 },
    });
    await engine.start();
    await waitFor(() => trades.length >= 20, '20 trades at onTrade', 30_000);
    for (const t of trades) {
      expect(watched.has(t.mint)).toBe(true);
      expect(t.room).toBe(`transaction:${t.mint}`);
      expect(['buy', 'sell']).toContain(t.side);
      expect(t.amount).toMatch(/^\d+(\.\d+)?$/);
      expect(t.tx).toEqual(expect.any(String));
      // the SOL size of the swap, exact lamports: the simulator's own trade record, through the wire's solVolume
      const rec = sim.model.state.tradesByToken.get(t.mint)?.find((r) => r.tx === t.tx);
      expect(rec).toBeDefined();
      expect(t.solLamports).toBe(rec!.solLamports);
    }
    expect(new Set(trades.map((t) => t.side)).size).toBe(2);
    expect(client.stats().rejectedByFamily).toEqual({});
  }, 40_000);
});
