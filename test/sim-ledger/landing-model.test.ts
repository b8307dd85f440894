import { LAMPORTS_PER_SOL } from '@solana/web3.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChainpilotError } from '../../src/core/index.js';
import { seededRandom } from '../../src/core/index.js';
import { WRAPPED_SOL_MINT } from '../../src/sim/ledger/index.js';
import { createLandingModel, inclusionChance, type LandingDraw } from '../../src/sim/ledger/landing-model.js';
import { parseLandingSettings } from '../../src/sim/sim-settings.js';
import { startHarness, type Harness } from './harness.js';

const defaults = parseLandingSettings({});
const input = { cuPriceMicroLamports: 0n, swapsPerSlot: 0, slotsLeft: 150 };
const slotsOf = (d: LandingDraw): number => (d.kind === 'slots' ? d.slots : Number.NaN);

describe('the landing model', () => {
  it('draws the inclusion delay from a geometric distribution: P(1 slot) = p and a mean of 1/p slots', () => {
    const s = parseLandingSettings({ quietInclusion: 0.4, maxInclusion: 0.4, dropRate: 0 });
    const model = createLandingModel(s, seededRandom(7));
    const draws = Array.from({ length: 20_000 }, () => slotsOf(model.draw(input)));
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    const oneSlot = draws.filter((d) => d === 1).length / draws.length;
    const twoSlots = draws.filter((d) => d === 2).length / draws.length;
    expect(Math.min(...draws)).toBe(1);
    expect(mean).toBeCloseTo(1 / 0.4, 1);
    expect(oneSlot).toBeCloseTo(0.4, 1);
    expect(twoSlots).toBeCloseTo(0.6 * 0.4, 1);
  });

  it('draws the same landings from the same seed, and other landings from another', () => {
    const draw = (seed: number): number[] => {
      const model = createLandingModel(defaults, seededRandom(seed));
      return Array.from({ length: 200 }, (_, i) => slotsOf(model.draw({ ...input, cuPriceMicroLamports: BigInt(i * 1_000) })));
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(43)).not.toEqual(draw(42));
  });

  it('includes a transaction sooner the higher its priority fee, and later the busier the market', () => {
    const mean = (cuPrice: bigint, swapsPerSlot: number): number => {
      const model = createLandingModel({ ...defaults, dropRate: 0 }, seededRandom(1));
      const draws = Array.from({ length: 5_000 }, () => slotsOf(model.draw({ ...input, cuPriceMicroLamports: cuPrice, swapsPerSlot })));
      return draws.reduce((a, b) => a + b, 0) / draws.length;
    };
    expect(inclusionChance(defaults, 0n, 0)).toBeCloseTo(0.6, 10);
    expect(inclusionChance(defaults, 100_000n, 0)).toBeCloseTo(0.6 + (0.95 - 0.6) / 2, 10);
    expect(inclusionChance(defaults, 0n, 20)).toBeCloseTo(0.6 * 0.3, 10);
    expect(inclusionChance(defaults, 0n, 40)).toBeCloseTo(0.6 * 0.3, 10);
    expect(mean(1_000_000n, 0)).toBeLessThan(mean(0n, 0));
    expect(mean(0n, 20)).toBeGreaterThan(mean(0n, 0) * 2);
    // a high fee buys its way through a busy market
    expect(mean(10_000_000n, 20)).toBeLessThan(1.1);
  });

  it('drops at the drop rate, and expires a transaction whose delay outlives its blockhash', () => {
    const model = createLandingModel(parseLandingSettings({ dropRate: 0.25 }), seededRandom(3));
    const kinds = Array.from({ length: 8_000 }, () => model.draw(input).kind);
    expect(kinds.filter((k) => k === 'dropped').length / kinds.length).toBeCloseTo(0.25, 1);
    const slow = createLandingModel(parseLandingSettings({ quietInclusion: 0.01, maxInclusion: 0.01, dropRate: 0 }), seededRandom(3));
    const fates = Array.from({ length: 1_000 }, () => slow.draw({ ...input, slotsLeft: 10 }));
    expect(fates.filter((f) => f.kind === 'expired').length).toBeGreaterThan(800);
    expect(fates.every((f) => f.kind === 'expired' || (f.kind === 'slots' && f.slots <= 10))).toBe(true);
  });

  it('refuses a bad setting naming the field', () => {
    const bad = (v: unknown): ChainpilotError | undefined => {
      try {
        parseLandingSettings(v);
        return undefined;
      } catch (e) {
        return e as ChainpilotError;
      }
    };
    expect(bad({ dropRate: 2 })?.message).toMatch(/landing\.dropRate/);
    expect(bad({ quietInclusion: 0.9, maxInclusion: 0.5 })?.message).toMatch(/landing\.maxInclusion/);
    expect(bad({ dropRat: 0.1 })?.code).toBe('SIM_INVALID_SETTINGS');
  });
});

describe('the ledger lands by the landing model, on the simulator clock', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  /** Sends a buy paying `priorityFee` SOL and returns the slots until it landed (or undefined after 150). */
  const slotsToLand = async (harness: Harness, mint: string, priorityFee: number): Promise<number | undefined> => {
    const wallet = await harness.wallet(5);
    const tx = await harness.buildSigned(wallet, { from: WRAPPED_SOL_MINT, to: mint, amount: 0.01, slippage: 50, priorityFee });
    const sent = harness.ledger.slot();
    const sig = await harness.connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    expect(await harness.status(sig)).toBeNull(); // never in the slot it was sent in
    for (let n = 1; n <= 150; n++) {
      harness.slots(1);
      const st = await harness.status(sig);
      if (st) {
        expect(st.slot).toBe(sent + n);
        return n;
      }
    }
    return undefined;
  };

  it('lands a transaction in a later slot drawn from the seed, sooner with a priority fee', async () => {
    const run = async (priorityFee: number): Promise<(number | undefined)[]> => {
      const harness = await startHarness({ landing: { quietInclusion: 0.2, maxInclusion: 0.95, feeHalfMicroLamports: 1_000, dropRate: 0 } });
      h = harness;
      const mint = harness.market.launch(30n * BigInt(LAMPORTS_PER_SOL), 1_000_000_000_000_000n, 6);
      const out: (number | undefined)[] = [];
      for (let i = 0; i < 12; i++) out.push(await slotsToLand(harness, mint, priorityFee));
      await harness.stop();
      h = undefined;
      return out;
    };
    const feeless = await run(0);
    const paying = await run(0.001);
    const mean = (xs: (number | undefined)[]): number => xs.reduce<number>((a, b) => a + (b ?? 150), 0) / xs.length;
    expect(feeless.every((n) => n !== undefined)).toBe(true);
    expect(mean(paying)).toBeLessThan(mean(feeless));
    expect(mean(paying)).toBeLessThan(1.5);
  });
});
