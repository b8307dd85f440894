import { afterEach, describe, expect, it } from 'vitest';
import { parseDeployment } from '../../src/config/index.js';
import { manualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/logger.js';
import { toRaw } from '../../src/core/decimal.js';
import { resolveLiveSettings } from '../../src/executors/live/live-settings.js';
import { createPriorityFeeSource, percentileOf } from '../../src/executors/live/priority-fee.js';
import { liveExecutorSettings } from '../../src/runtime/live/live-executor-settings.js';
import { createHarness, startHarness, type Harness } from './support/harness.js';

const base = 'version: 1\nname: t\nstrategies:\n  - use: graduation-sniper\nlive:\n  maxTradeSpendSol: 1\n  maxDaySpendSol: 2\n';
const parse = (extra: string) => parseDeployment(`${base}${extra}`, 'd.yaml', { env: {} }).deployment;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('rebuild policy in the deployment file', () => {
  it('reaches the executor with the ramp off, two rebuilds, simulate inspection and a fixed fee by default', () => {
    const s = resolveLiveSettings(liveExecutorSettings(parse('')));
    expect(s).toMatchObject({ maxTradeLamports: 1_000_000_000n, maxDayLamports: 2_000_000_000n, maxAttempts: 3, slippageStepBps: 0, inspection: 'simulate' });
    expect(s.priorityFee).toBeUndefined();
  });

  it('maps retries, the slippage ramp, the percentile fee and static inspection', () => {
    const d = parse(
      'execution:\n  priorityFeeLamports: 500000\n  retries: 0\n  slippageRamp: { stepBps: 50, maxBps: 800 }\n  priorityFee: { percentile: 90, capLamports: 300000 }\n  inspection: static\n',
    );
    const s = resolveLiveSettings(liveExecutorSettings(d));
    expect(s).toMatchObject({ maxAttempts: 1, slippageStepBps: 50, maxSlippageBps: 800, inspection: 'static' });
    expect(s.priorityFee).toEqual({ percentile: 90, capLamports: 300_000n, computeUnits: 200_000 });
    expect(liveExecutorSettings(parse('execution:\n  priorityFee: { percentile: 50 }\n')).priorityFee?.capLamports).toBe(100_000n);
  });

  it('names the field and the fix for a ramp cap below the slippage, a fee cap above the budget, or a bad percentile', () => {
    const message = (extra: string): string => {
      try {
        parse(extra);
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(message('execution:\n  slippageRamp: { stepBps: 100, maxBps: 200 }\n')).toMatch(/slippageRamp\.maxBps.*at least execution\.slippageBps \(300\)/);
    expect(message('execution:\n  priorityFee: { percentile: 75, capLamports: 200000 }\n')).toMatch(
      /priorityFee\.capLamports.*at most execution\.priorityFeeLamports \(100000\)/,
    );
    expect(message('execution:\n  priorityFee: { percentile: 0 }\n')).toMatch(/priorityFee\.percentile/);
    expect(message('execution:\n  retries: 11\n')).toMatch(/execution\.retries/);
  });

  it('rebuilds an expired transaction with the same slippage when the ramp is off', async () => {
    h = await createHarness({ settings: { maxAttempts: 2 } });
    await startHarness(h);
    h.chain.fates.push({ kind: 'drop' });
    await h.executor.submit(h.intent(1));
    await h.runUntil(() => h!.reports.some((r) => r.intentId === 'int-1' && r.type === 'filled'));
    expect((await h.journal.get('int-1'))?.attempts.map((a) => a.slippageBps)).toEqual([100, 100]);
  });
});

describe('priority fee from recent fees', () => {
  it('takes the nearest-rank percentile', () => {
    expect(percentileOf([], 50)).toBe(0n);
    expect(percentileOf([5n, 1n, 3n, 2n, 4n], 50)).toBe(3n);
    expect(percentileOf([5n, 1n, 3n, 2n, 4n], 100)).toBe(5n);
    expect(percentileOf([5n, 1n, 3n, 2n, 4n], 1)).toBe(1n);
  });

  it('pays percentile × units, capped by the policy and the intent budget, cached for a second, the cap when the read fails', async () => {
    const clock = manualClock(0);
    let reads = 0;
    let fail = false;
    const rpc = {
      getRecentPrioritizationFees: async () => {
        reads++;
        if (fail) throw new Error('rpc down');
        return [10_000n, 20_000n, 30_000n, 40_000n].map((prioritizationFee, slot) => ({ slot, prioritizationFee }));
      },
    };
    const fees = createPriorityFeeSource({ percentile: 75, capLamports: 5_000n, computeUnits: 200_000 }, rpc, clock, silentLogger());
    expect(await fees.feeFor(1_000_000n)).toBe(5_000n); // 30 000 µL × 200k CU = 6000, capped at 5000
    expect(await fees.feeFor(4_000n)).toBe(4_000n); // the intent's budget is the ceiling
    expect(reads).toBe(1);
    clock.advance(1_000);
    fail = true;
    expect(await fees.feeFor(1_000_000n)).toBe(5_000n);
    expect(reads).toBe(2);
    const low = createPriorityFeeSource(
      { percentile: 25, capLamports: 5_000n, computeUnits: 200_000 },
      { getRecentPrioritizationFees: rpc.getRecentPrioritizationFees },
      manualClock(0),
      silentLogger(),
    );
    fail = false;
    expect(await low.feeFor(1_000_000n)).toBe(2_000n); // 10 000 µL × 200k CU
  });

  it('asks the swap service for the dynamic fee', async () => {
    h = await createHarness({ settings: { priorityFee: { percentile: 50, capLamports: 8_000n, computeUnits: 200_000 } } });
    const asked: bigint[] = [];
    const build = h.swap.buildSwap.bind(h.swap);
    h.swap.buildSwap = (req, o) => {
      asked.push(toRaw(req.priorityFeeSol, 9));
      return build(req, o);
    };
    h.chain.recentFees = [10_000n, 20_000n, 90_000n];
    await startHarness(h);
    await h.executor.submit(h.intent(1));
    await h.runUntil(() => h!.reports.some((r) => r.intentId === 'int-1' && r.type === 'filled'));
    expect(asked).toEqual([4_000n]); // median 20 000 µL per CU × 200 000 CU; below the cap and the intent's 10 000 budget
  });
});
