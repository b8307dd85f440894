/**
 * The shipped deployment config/paper-sim.yaml, run in paper mode for a simulated hour against a
 * seeded scripted market (the embedded simulator replaces it once merged).
 */
import { describe, expect, it } from 'vitest';
import { decimal, manualClock, seededRandom } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import { memoryDecisionLog, type DecisionEntry } from '../../src/engine/logs/decision-log.js';
import type { OrderIntent } from '../../src/engine/orders/execution-port.js';
import { createPaperSession } from '../../src/runtime/paper/paper-session.js';
import { resolveStrategies } from '../../src/runtime/compose/resolve-strategies.js';
import { fakeFeed } from '../engine/fake-feed.js';
import { scriptedMarket } from './scripted-market.js';

const HOUR = 3_600_000;

async function runHour(seed: number) {
  const loaded = loadDeployment('config/paper-sim.yaml');
  const deployment = { ...loaded.deployment, telemetry: { ...loaded.deployment.telemetry, decisionLog: undefined } };
  const strategies = await resolveStrategies(loaded);
  const clock = manualClock(1_767_225_600_000); // 2026-01-01T00:00Z
  const feed = fakeFeed(clock);
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
    decisions: (e) => {
      log.sink(e);
      entries.push(e);
      if (e.kind === 'fill') {
        const t = session.engine.portfolio.totals();
        if (t.openPositions > deployment.risk.maxOpenPositions!) violations.push(`open ${t.openPositions} at ${e.at}`);
        if (t.openCostLamports > deployment.risk.maxExposureLamports!) violations.push(`exposure ${t.openCostLamports} at ${e.at}`);
        const obs = session.engine.market.get(e.mint);
        const intent = intents.get(e.intentId)!;
        // Fill vs the market price the executor saw: never better, and within the intent's slippage of its reference.
        const fillPrice = decimal(e.price);
        const seen = decimal(obs!.price!);
        if (e.side === 'buy' ? fillPrice.lt(seen) : fillPrice.gt(seen)) violations.push(`fill ${e.intentId} at ${e.price} better than market ${obs!.price}`);
        const ref = decimal(intent.referencePrice!);
        const tol = decimal(intent.slippageBps).div(10_000);
        if (e.side === 'buy' ? fillPrice.gt(ref.times(tol.plus(1))) : fillPrice.lt(ref.times(decimal(1).minus(tol))))
          violations.push(`fill ${e.intentId} beyond slippage`);
      }
    },
    onIntent: (i) => intents.set(i.id, i),
  });
  const market = scriptedMarket(feed, clock, seed);
  await session.start();
  market.run(HOUR);
  await session.stop();
  return { session, log, entries, violations, market, deployment };
}

describe('paper session on the shipped paper-sim deployment (simulated hour)', () => {
  it('trades, keeps risk limits, fills within the model, adds up exactly and is reproducible', async () => {
    const a = await runHour(42);
    const { engine } = a.session;
    const summary = engine.stats.summary();
    expect(a.market.launched).toBeGreaterThan(100);
    expect(a.market.graduated).toBeGreaterThan(0);
    expect(summary.fills).toBeGreaterThan(10);
    expect(summary.trades).toBeGreaterThan(3);
    expect(a.violations).toEqual([]);
    expect(summary.badFrames).toBe(0);
    expect(summary.strategyErrors).toBe(0);

    // Positions and PnL, recomputed independently from the fills in the decision log.
    const fills = a.entries.filter((e): e is Extract<DecisionEntry, { kind: 'fill' }> => e.kind === 'fill');
    let cash: bigint = a.deployment.paper.startingBalanceLamports;
    const held = new Map<string, bigint>();
    for (const u of a.entries) if (u.kind === 'unfilled') cash -= BigInt(u.feeLamports);
    for (const f of fills) {
      const key = `${f.strategyId}/${f.mint}`;
      const sol = BigInt(f.solAmount);
      const fee = BigInt(f.feeLamports);
      const tok = BigInt(f.tokenAmount);
      cash += f.side === 'buy' ? -(sol + fee) : sol - fee;
      held.set(key, (held.get(key) ?? 0n) + (f.side === 'buy' ? tok : -tok));
    }
    const t = engine.portfolio.totals();
    expect(t.cashLamports).toBe(cash);
    expect(t.cashLamports + t.openCostLamports).toBe(t.startingCashLamports + t.realisedLamports);
    for (const p of engine.portfolio.open()) expect(p.tokenRaw).toBe(held.get(`${p.strategyId}/${p.mint}`));
    expect([...held.values()].filter((v) => v > 0n).length).toBe(t.openPositions);
    expect(t.feesLamports).toBeGreaterThanOrEqual(BigInt(fills.length) * 5_000n);

    // Denials are values with stable codes; no buy after a daily-loss halt on the same day.
    const codes = new Set(a.entries.filter((e) => e.kind === 'denied').map((e) => (e as { code: string }).code));
    for (const c of codes) expect(c).toMatch(/^RISK_/);

    const b = await runHour(42);
    expect(b.log.lines.join('')).toBe(a.log.lines.join(''));
    const c = await runHour(43);
    expect(c.log.lines.join('')).not.toBe(a.log.lines.join(''));
  });
});
