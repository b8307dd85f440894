import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/index.js';
import { createFaultPlan } from '../../src/sim/ledger/faults.js';

describe('the fault plan', () => {
  it('draws the same faults from the same seed, at about the configured rates', () => {
    const draw = (seed: string) => {
      const plan = createFaultPlan(seededRandom(seed), { dropRate: 0.2, rpcErrorRate: 0.1 });
      return Array.from({ length: 2_000 }, () => `${plan.nextLanding()?.kind ?? '-'}/${plan.nextRpc('getSlot')?.kind ?? '-'}`);
    };
    const a = draw('s1');
    expect(draw('s1')).toEqual(a);
    expect(draw('s2')).not.toEqual(a);
    const drops = a.filter((x) => x.startsWith('drop')).length;
    const errors = a.filter((x) => x.endsWith('/error')).length;
    expect(drops).toBeGreaterThan(300);
    expect(drops).toBeLessThan(500);
    expect(errors).toBeGreaterThan(120);
    expect(errors).toBeLessThan(280);
  });

  it('serves an injected fault first and only to the method it names', () => {
    const plan = createFaultPlan(seededRandom(1));
    plan.inject({ kind: 'rpc', rpc: { kind: 'timeout', method: 'sendTransaction' } });
    plan.inject({ kind: 'delay', slots: 3 });
    expect(plan.nextRpc('getSlot')).toBeUndefined();
    expect(plan.nextRpc('sendTransaction')).toEqual({ kind: 'timeout', method: 'sendTransaction' });
    expect(plan.nextRpc('sendTransaction')).toBeUndefined();
    expect(plan.nextLanding()).toEqual({ kind: 'delay', slots: 3 });
    expect(plan.nextLanding()).toBeUndefined();
    expect(plan.nextSwapMalicious()).toBe(false);
  });
});
