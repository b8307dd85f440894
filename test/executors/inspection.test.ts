import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, startHarness, type Harness } from './support/harness.js';
import type { SwapMode } from './support/fake-swap.js';

let h: Harness;
afterEach(async () => {
  await h.close();
});

const cases: [SwapMode, string, 'buy' | 'sell'][] = [
  ['drain', 'LIVE_INSPECTION_INSTRUCTION', 'buy'],
  ['foreign-payer', 'LIVE_INSPECTION_FEE_PAYER', 'buy'],
  ['unknown-program', 'LIVE_INSPECTION_PROGRAM', 'buy'],
  ['greedy-fee', 'LIVE_INSPECTION_PRIORITY_FEE', 'buy'],
  // tokens to a stranger's account, whose rent our wallet pays: rent is granted only for our own new account of the mint
  ['wrong-output', 'LIVE_INSPECTION_OUTFLOW', 'buy'],
  ['wrong-output', 'LIVE_INSPECTION_OUTPUT', 'sell'],
  ['oversell', 'LIVE_INSPECTION_OUTFLOW', 'sell'],
];

describe('inspection before signing', () => {
  it.each(cases)('rejects a %s swap service (%s on a %s) and never signs or sends', async (mode, code, side) => {
    h = await createHarness();
    await startHarness(h);
    if (side === 'sell') {
      await h.executor.submit(h.intent(0));
      await h.runUntil(() => h.reports.some((r) => r.type === 'filled'));
    }
    const received = h.chain.stats.received.size;
    const tokens = h.chain.tokensOf(h.wallet, h.mint);
    h.swap.mode = mode;
    await h.executor.submit(h.intent(1, side === 'sell' ? { side: 'sell', sellRaw: tokens / 4n } : {}));
    await h.runUntil(() => h.reports.some((r) => r.intentId === 'int-1' && r.type !== 'accepted'));
    const r = h.reports.find((x) => x.intentId === 'int-1' && x.type === 'rejected');
    expect(r?.type === 'rejected' && r.code).toBe(code);
    expect(r?.type === 'rejected' && r.reason.length).toBeGreaterThan(20);
    const rec = await h.journal.get('int-1');
    expect(rec?.state).toBe('DENIED');
    expect(rec?.attempts).toHaveLength(0); // nothing was signed
    expect(h.chain.stats.received.size).toBe(received); // nothing was sent
  });

  it('rejects, in simulate mode, a venue instruction that sells another token account of our wallet (only the simulation can see it)', async () => {
    h = await createHarness();
    await startHarness(h);
    const other = h.chain.createMint(6);
    h.chain.addPool(other, 30_000_000_000n, 1_000_000_000_000_000n);
    await h.executor.submit(h.intent(0));
    await h.executor.submit(h.intent(9, { mint: other.toBase58() }));
    await h.runUntil(() => h.reports.filter((r) => r.type === 'filled').length === 2);
    const otherTokens = h.chain.tokensOf(h.wallet, other);
    const received = h.chain.stats.received.size;
    h.swap.mode = 'siphon';
    h.swap.siphonMint = other;
    await h.executor.submit(h.intent(1, { side: 'sell', sellRaw: h.chain.tokensOf(h.wallet, h.mint) / 4n }));
    await h.runUntil(() => h.reports.some((r) => r.intentId === 'int-1' && r.type !== 'accepted'));
    const r = h.reports.find((x) => x.intentId === 'int-1' && x.type !== 'accepted');
    expect(r?.type === 'rejected' && r.code).toBe('LIVE_INSPECTION_ACCOUNT');
    expect(r?.type === 'rejected' && r.reason).toContain(`mint ${other.toBase58()}`);
    expect(h.chain.stats.received.size).toBe(received);
    expect(h.chain.tokensOf(h.wallet, other)).toBe(otherTokens);
  });

  it('in static mode refuses a venue swap whose output it cannot read and a base-program theft, without one simulation call', async () => {
    h = await createHarness({ settings: { inspection: 'static' } });
    let simulations = 0;
    const simulate = h.chain.simulateTransaction.bind(h.chain);
    h.chain.simulateTransaction = (tx, o) => {
      simulations++;
      return simulate(tx, o);
    };
    await startHarness(h);
    await h.executor.submit(h.intent(0));
    await h.runUntil(() => h.reports.some((r) => r.intentId === 'int-0' && r.type !== 'accepted'));
    // The fake venue delivers through its own program (a CPI): static mode cannot prove the output.
    expect(h.reports.find((x) => x.intentId === 'int-0' && x.type !== 'accepted')).toMatchObject({
      type: 'rejected',
      code: 'LIVE_INSPECTION_OUTPUT',
      reason: expect.stringMatching(/^static inspection proves 0 raw \w+ arriving from no instruction; the intent accepts at least 1/) as unknown,
    });
    h.swap.mode = 'drain';
    await h.executor.submit(h.intent(1));
    await h.runUntil(() => h.reports.some((r) => r.intentId === 'int-1' && r.type !== 'accepted'));
    const r = h.reports.find((x) => x.intentId === 'int-1' && x.type !== 'accepted');
    expect(r?.type === 'rejected' && r.code).toBe('LIVE_INSPECTION_INSTRUCTION');
    expect(r?.type === 'rejected' && r.reason).toMatch(/^instruction #\d+ \(System Transfer\) moves 1000000000 lamports from our wallet/);
    expect(simulations).toBe(0);
  });

  it('rejects a swap whose simulation fails', async () => {
    h = await createHarness();
    await startHarness(h);
    await h.executor.submit(h.intent(1, { spendLamports: 1_999_000_000n, mint: h.chain.createMint(6).toBase58() })); // no pool for this mint
    await h.runUntil(() => h.reports.some((r) => r.type === 'rejected'));
    const r = h.reports.find((x) => x.type === 'rejected');
    expect(r?.type === 'rejected' && r.code).toBe('LIVE_INSPECTION_SIMULATION');
    expect(h.chain.stats.received.size).toBe(0);
  });

  it('rejects with LIVE_BUILD_FAILED when the swap service keeps failing, after bounded tries', async () => {
    h = await createHarness({ settings: { buildTries: 3 } });
    await startHarness(h);
    h.swap.failNext = 10;
    await h.executor.submit(h.intent(1));
    await h.runUntil(() => h.reports.some((r) => r.type === 'rejected'));
    expect(h.swap.builds).toBe(3);
    const r = h.reports.find((x) => x.type === 'rejected');
    expect(r?.type === 'rejected' && r.code).toBe('LIVE_BUILD_FAILED');
  });
});

describe('spend caps inside the executor', () => {
  it('rejects an intent above the per-trade cap before building anything', async () => {
    h = await createHarness({ settings: { maxTradeLamports: 500_000_000n } });
    await startHarness(h);
    await h.executor.submit(h.intent(1, { spendLamports: 500_000_000n }));
    const r = h.reports[0];
    expect(r?.type === 'rejected' && r.code).toBe('LIVE_SPEND_CAP_TRADE');
    expect(h.swap.builds).toBe(0);
    expect(await h.journal.get('int-1')).toMatchObject({ state: 'DENIED', code: 'LIVE_SPEND_CAP_TRADE', reported: true });
  });

  it('rejects intents that would pass the per-day cap and accepts again the next UTC day', async () => {
    h = await createHarness({ settings: { maxDayLamports: 250_000_000n } });
    await startHarness(h);
    await h.executor.submit(h.intent(1));
    await h.executor.submit(h.intent(2));
    await h.executor.submit(h.intent(3));
    expect(h.reports.map((r) => `${r.intentId}:${r.type}`)).toEqual(['int-1:accepted', 'int-2:accepted', 'int-3:rejected']);
    const r = h.reports[2];
    expect(r?.type === 'rejected' && r.code).toBe('LIVE_SPEND_CAP_DAY');
    await h.runUntil(() => h.reports.filter((x) => x.type === 'filled').length === 2);
    h.clock.advance(24 * 3600_000);
    await h.executor.submit(h.intent(4));
    expect(h.reports.at(-1)?.type).toBe('accepted');
  });

  it('counts spend already journaled before a restart against the day', async () => {
    h = await createHarness({ settings: { maxDayLamports: 150_000_000n } });
    await startHarness(h);
    await h.executor.submit(h.intent(1));
    await h.runUntil(() => h.reports.some((r) => r.type === 'filled'));
    await h.restart();
    await h.executor.submit(h.intent(2));
    const r = h.reports.at(-1);
    expect(r?.type === 'rejected' && r.code).toBe('LIVE_SPEND_CAP_DAY');
  });
});
