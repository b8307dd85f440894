/**
 * End to end: the shipped deployment config/paper-sim.yaml in paper mode against the embedded
 * simulator, over a real WebSocket and the Datastream client, for one simulated hour on a manual
 * clock. The test advances the clock one simulated second at a time and waits until the client has
 * received every frame the simulator sent and the simulator has applied every join and leave, so
 * the run is reproducible.
 */
import { describe, expect, it } from 'vitest';
import { createDatastreamClient } from '../../src/client/datastream/index.js';
import { decimal, manualClock, seededRandom, type UnixMs } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import { memoryDecisionLog, type DecisionEntry } from '../../src/engine/logs/decision-log.js';
import type { OrderIntent } from '../../src/engine/orders/execution-port.js';
import { createPaperSession } from '../../src/runtime/paper/paper-session.js';
import { resolveStrategies } from '../../src/runtime/compose/resolve-strategies.js';
import { startSimulator } from '../../src/sim/start-simulator.js';

const HOUR = 3_600_000;
const START = 1_767_225_600_000 as UnixMs; // 2026-01-01T00:00Z

async function settle(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000 && !ready(); i++) await new Promise((r) => setTimeout(r, i < 50 ? 0 : 1));
  await new Promise((r) => setImmediate(r));
}

async function run(seed: number, durationMs: number) {
  const loaded = loadDeployment('config/paper-sim.yaml');
  const deployment = { ...loaded.deployment, telemetry: { ...loaded.deployment.telemetry, decisionLog: undefined } };
  const strategies = await resolveStrategies(loaded);
  const clock = manualClock(START);
  const sim = await startSimulator({ seed, clock, startAt: START, apiKey: 'e2e-key-123456' });
  const feed = createDatastreamClient({ url: sim.urls.datastream, apiKey: 'e2e-key-123456', random: seededRandom(seed) });
  const log = memoryDecisionLog();
  const entries: DecisionEntry[] = [];
  const intents = new Map<string, OrderIntent>();
  const violations: string[] = [];
  const session = createPaperSession({
    deployment,
    strategies,
    feed,
    clock,
    random: seededRandom(seed),
    onIntent: (i) => intents.set(i.id, i),
    decisions: (e) => {
      log.sink(e);
      entries.push(e);
      if (e.kind === 'intent' && e.side === 'buy') {
        // Daily loss limit: no buy once the day's loss (from the starting equity; the run stays in one UTC day) reaches it.
        const loss = deployment.paper.startingBalanceLamports - session.engine.portfolio.totals().equityLamports;
        if (loss >= deployment.risk.dailyLossLimitLamports!) violations.push(`buy ${e.intentId} with a day loss of ${loss}`);
      }
      if (e.kind !== 'fill') return;
      const t = session.engine.portfolio.totals();
      if (t.openPositions > deployment.risk.maxOpenPositions!) violations.push(`open positions ${t.openPositions}`);
      if (t.openCostLamports > deployment.risk.maxExposureLamports!) violations.push(`exposure ${t.openCostLamports}`);
      // The fill against the simulator's price the engine saw: never better, and within the intent's slippage twice over
      // (live's two rules: the pool moved at most the slippage from the reference, and fee and impact at most the slippage on top).
      const seen = decimal(session.engine.market.get(e.mint)!.price!);
      const price = decimal(e.price);
      if (e.side === 'buy' ? price.lt(seen) : price.gt(seen)) violations.push(`fill ${e.intentId} at ${e.price} better than ${seen.toFixed()}`);
      const intent = intents.get(e.intentId)!;
      if (intent.referencePrice !== undefined) {
        const ref = decimal(intent.referencePrice);
        const tol = decimal(intent.slippageBps).div(10_000);
        if (e.side === 'buy' ? price.gt(ref.times(tol.plus(1)).times(tol.plus(1))) : price.lt(ref.times(decimal(1).minus(tol)).times(decimal(1).minus(tol))))
          violations.push(`fill ${e.intentId} beyond slippage`);
      }
    },
  });
  try {
    await feed.whenOpen();
    await session.start();
    const quiet = () => sim.stats().rooms === feed.rooms().length && sim.stats().framesSent === feed.stats().frames;
    for (let t = 0; t < durationMs; t += 1_000) {
      clock.advance(1_000);
      await settle(quiet);
    }
    await session.stop();
  } finally {
    feed.close();
    await sim.stop();
  }
  return { session, log, entries, violations, deployment };
}

describe('paper-sim deployment against the embedded simulator (one simulated hour)', () => {
  it('trades within the risk limits, fills consistently with simulator prices, adds up exactly and repeats with one seed', async () => {
    const a = await run(7, HOUR);
    const { engine } = a.session;
    const s = engine.stats.summary();
    expect(s.fills).toBeGreaterThan(5);
    expect(s.trades).toBeGreaterThan(1);
    expect(s.badFrames).toBe(0);
    expect(s.strategyErrors).toBe(0);
    expect(a.violations).toEqual([]);

    // Positions and PnL recomputed from the fills in the decision log.
    let cash: bigint = a.deployment.paper.startingBalanceLamports;
    const held = new Map<string, bigint>();
    for (const f of a.entries) {
      if (f.kind === 'unfilled') cash -= BigInt(f.feeLamports);
      if (f.kind !== 'fill') continue;
      const sol = BigInt(f.solAmount);
      const fee = BigInt(f.feeLamports);
      cash += f.side === 'buy' ? -(sol + fee) : sol - fee;
      const k = `${f.strategyId}/${f.mint}`;
      held.set(k, (held.get(k) ?? 0n) + (f.side === 'buy' ? BigInt(f.tokenAmount) : -BigInt(f.tokenAmount)));
    }
    const t = engine.portfolio.totals();
    expect(t.cashLamports + t.openCostLamports).toBe(t.startingCashLamports + t.realisedLamports);
    expect(t.cashLamports).toBe(cash);
    for (const p of engine.portfolio.open()) expect(p.tokenRaw).toBe(held.get(`${p.strategyId}/${p.mint}`));
    for (const e of a.entries) if (e.kind === 'denied') expect(e.code).toMatch(/^RISK_/);

    // A second run with the same seed decides exactly the same (compared over its first 20 minutes).
    const cut = START + 20 * 60_000 - 1_000;
    const b = await run(7, 20 * 60_000);
    const upTo = (lines: string[]) => lines.filter((l) => (JSON.parse(l) as { at: number }).at < cut).join('');
    expect(upTo(b.log.lines).length).toBeGreaterThan(500);
    expect(upTo(b.log.lines)).toBe(upTo(a.log.lines));
  }, 90_000);
});
