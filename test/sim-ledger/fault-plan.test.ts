import { describe, expect, it } from 'vitest';
import { isChainpilotError, manualClock, seededRandom } from '../../src/core/index.js';
import { createFaultPlan } from '../../src/sim/ledger/faults.js';
import { createLedger } from '../../src/sim/ledger/index.js';
import { fakeMarket } from './fake-market.js';

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

describe('ledger options', () => {
  it('are checked at start and a bad one names its field', () => {
    const base = { market: fakeMarket(), clock: manualClock(0), random: seededRandom(1) };
    const bad: [Record<string, unknown>, string][] = [
      [{ faults: { dropRate: 1.5 } }, 'faults.dropRate'],
      [{ slotMs: 0 }, 'slotMs'],
      [{ faults: { dropRat: 0.1 } }, 'dropRat'],
      [{ confirmAfterSlots: 40 }, 'confirmAfterSlots'],
    ];
    for (const [knobs, field] of bad) {
      let error: unknown;
      try {
        createLedger({ ...base, ...knobs }).stop();
      } catch (e) {
        error = e;
      }
      expect(isChainpilotError(error, 'LEDGER_INVALID_OPTIONS')).toBe(true);
      expect((error as Error).message).toContain(field);
    }
    const ok = createLedger({ ...base, slotMs: 100, faults: { dropRate: 0.1 } });
    ok.stop();
  });
});
