import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Fill } from '../../src/engine/orders/execution-port.js';
import { WSOL_MINT } from '../../src/executors/live/ports.js';
import { isAssociatedAddressCached } from '../../src/executors/live/swap-accounts.js';
import { createHarness, reportTypes, startHarness, type Harness } from './support/harness.js';

let h: Harness;
afterEach(async () => {
  await h.close();
});

const filled = (id: string): Fill => {
  const r = h.reports.find((x) => x.intentId === id && x.type === 'filled');
  if (r?.type !== 'filled') throw new Error(`no fill for ${id}`);
  return r.fill;
};

const settled = (id: string) => () => h.reports.some((r) => r.intentId === id && r.type !== 'accepted');

describe('live executor on the fake chain', () => {
  it('lands a buy once and reports the fill the ledger actually moved', async () => {
    h = await createHarness();
    await startHarness(h);
    const before = h.chain.lamportsOf(h.wallet);
    await h.executor.submit(h.intent(1));
    await h.runUntil(settled('int-1'));
    expect(reportTypes(h, 'int-1')).toEqual(['accepted', 'filled']);
    const fill = filled('int-1');
    expect(h.chain.stats.landed).toHaveLength(1);
    expect(fill.signature).toBe(h.chain.stats.landed[0]!.signature);
    expect(fill.tokenAmount).toBe(h.chain.tokensOf(h.wallet, h.mint));
    expect(before - h.chain.lamportsOf(h.wallet)).toBe(fill.solAmount + fill.feeLamports);
    expect(fill.solAmount).toBe(100_000_000n + 2_039_280n); // amount plus the rent of the token account it opened
    expect(fill.rentLamports).toBe(2_039_280n); // ... which the fill names as rent
    expect(fill.feeLamports).toBe(5_000n + 10_000n);
    const rec = await h.journal.get('int-1');
    expect(rec?.state).toBe('LANDED');
    expect(rec?.reported).toBe(true);
  });

  it('rebuilds a dropped transaction only after it expired, and exactly one rebuild lands', async () => {
    h = await createHarness();
    await startHarness(h);
    h.chain.fates.push({ kind: 'drop' });
    await h.executor.submit(h.intent(1));
    await h.runUntil(settled('int-1'));
    expect(reportTypes(h, 'int-1')).toEqual(['accepted', 'filled']);
    expect(h.swap.builds).toBe(2);
    expect(h.chain.stats.landed).toHaveLength(1);
    const rec = await h.journal.get('int-1');
    expect(rec?.attempts.map((a) => a.state)).toEqual(['EXPIRED', 'LANDED']);
    expect(rec?.attempts.map((a) => a.slippageBps)).toEqual([100, 100]); // the slippage ramp is off by default
    // the first transaction was re-broadcast (same bytes) and given up only past its expiry height
    const first = rec!.attempts[0]!;
    expect(h.chain.stats.sends.get(first.signature)).toBeGreaterThan(1);
    const landedAt = h.chain.stats.landed[0]!.height;
    expect(landedAt).toBeGreaterThan(first.expiryBlockHeight + h.executor.settings.expiryMarginBlocks);
  });

  it('journals one fsynced write between the decision and each send: the signed attempt (the create commits without an fsync; no BUILT step)', async () => {
    /** Each journal write: its method, the transactions the chain had received when it was called, and whether it waited for an fsync. */
    const writes: [op: string, sentBefore: number, synced: boolean][] = [];
    const WRITES: ReadonlySet<string> = new Set(['create', 'markBuilt', 'recordSigned', 'markSent', 'resolve', 'deny', 'markReported']);
    h = await createHarness({
      wrapJournal: (j) =>
        new Proxy(j, {
          get(target, prop, receiver) {
            const v: unknown = Reflect.get(target, prop, receiver);
            if (typeof prop !== 'string' || !WRITES.has(prop) || typeof v !== 'function') return v;
            return async (...args: unknown[]): Promise<unknown> => {
              const sent = h.chain.stats.received.size;
              const synced = h.journal.syncedWrites();
              const r: unknown = await Reflect.apply(v, target, args);
              writes.push([prop, sent, h.journal.syncedWrites() > synced]);
              return r;
            };
          },
        }),
    });
    await startHarness(h);
    h.chain.fates.push({ kind: 'drop' }); // the first transaction never lands: a rebuild after its expiry
    await h.executor.submit(h.intent(1));
    await h.runUntil(settled('int-1'));
    expect(reportTypes(h, 'int-1')).toEqual(['accepted', 'filled']);
    expect(h.chain.stats.received.size).toBe(2);
    const before = (sent: number): [string, boolean][] => writes.filter(([, s]) => s === sent).map(([op, , synced]) => [op, synced]);
    // the decision (create: committed, not fsynced), then one fsynced write before the first transaction left
    expect(before(0)).toEqual([
      ['create', false],
      ['recordSigned', true],
    ]);
    // the expiry (committed, not fsynced), then one fsynced write before the second transaction left
    const afterFirst = before(1);
    expect(afterFirst.slice(afterFirst.findIndex(([op]) => op === 'resolve'))).toEqual([
      ['resolve', false],
      ['recordSigned', true],
    ]);
    expect(afterFirst.filter(([, synced]) => synced)).toHaveLength(1);
    expect(writes.map(([op]) => op)).not.toContain('markBuilt');
    // every fsync of the intent's life is a signed attempt's: one per transaction sent
    expect(writes.filter(([, , synced]) => synced).map(([op]) => op)).toEqual(['recordSigned', 'recordSigned']);
    expect(h.journal.syncedWrites()).toBe(2);
  });

  it('reads nothing back from the journal between the decision and the first send: it drives from the records it wrote', async () => {
    /** Each journal call (reads included) and the transactions the chain had received when it was made. */
    const calls: [op: string, sentBefore: number][] = [];
    h = await createHarness({
      wrapJournal: (j) =>
        new Proxy(j, {
          get(target, prop, receiver) {
            const v: unknown = Reflect.get(target, prop, receiver);
            if (typeof prop !== 'string' || typeof v !== 'function') return v;
            return (...args: unknown[]): unknown => {
              calls.push([prop, h.chain.stats.received.size]);
              return Reflect.apply(v, target, args);
            };
          },
        }),
    });
    await startHarness(h);
    calls.splice(0); // start-up's reads
    await h.executor.submit(h.intent(1));
    await h.runUntil(settled('int-1'));
    expect(reportTypes(h, 'int-1')).toEqual(['accepted', 'filled']);
    expect(calls.filter(([, sent]) => sent === 0).map(([op]) => op)).toEqual(['create', 'recordSigned']);
    // what was sent is what the journal holds
    const rec = await h.journal.get('int-1');
    expect(rec?.attempts.map((a) => [a.n, a.state])).toEqual([[0, 'LANDED']]);
    expect([...h.chain.stats.received.keys()]).toEqual([rec?.attempts[0]?.signature]);
  });

  it('derives the accounts inspection needs while the swap service builds the transaction, not between the build and the send', async () => {
    const cachedWhenBuilt: boolean[] = [];
    h = await createHarness({
      wrapSwap: (s) => ({
        async buildSwap(req, o) {
          const built = await s.buildSwap(req, o);
          await new Promise((r) => setImmediate(r)); // the answer arrives on a later turn, as over a socket
          const wallet = h.wallet.toBase58();
          cachedWhenBuilt.push(isAssociatedAddressCached(wallet, h.mint.toBase58(), 'classic') && isAssociatedAddressCached(wallet, WSOL_MINT, 'classic'));
          return built;
        },
      }),
    });
    await startHarness(h);
    expect(isAssociatedAddressCached(h.wallet.toBase58(), h.mint.toBase58(), 'classic')).toBe(false); // a mint not seen before
    await h.executor.submit(h.intent(1));
    await h.runUntil(settled('int-1'));
    expect(reportTypes(h, 'int-1')).toEqual(['accepted', 'filled']);
    expect(cachedWhenBuilt).toEqual([true]);
  });

  it('waits out a send that timed out but landed late, and never builds a second transaction', async () => {
    h = await createHarness();
    await startHarness(h);
    h.chain.fates.push({ kind: 'timeout-then-land', afterBlocks: 120 });
    await h.executor.submit(h.intent(1));
    await h.runUntil(settled('int-1'));
    expect(reportTypes(h, 'int-1')).toEqual(['accepted', 'filled']);
    expect(h.swap.builds).toBe(1);
    expect(h.chain.stats.received.size).toBe(1);
    expect(h.chain.stats.landed).toHaveLength(1);
    expect([...h.chain.stats.sends.values()][0]).toBeGreaterThan(10);
  });

  it('reports an on-chain failure with its fee and never resends or rebuilds', async () => {
    h = await createHarness();
    await startHarness(h);
    const before = h.chain.lamportsOf(h.wallet);
    h.chain.fates.push({ kind: 'fail' });
    await h.executor.submit(h.intent(1));
    await h.runUntil(settled('int-1'));
    expect(reportTypes(h, 'int-1')).toEqual(['accepted', 'failed']);
    const r = h.reports.find((x) => x.type === 'failed');
    expect(r?.type === 'failed' && r.feeLamports).toBe(15_000n);
    expect(before - h.chain.lamportsOf(h.wallet)).toBe(15_000n);
    const sendsAtDecision = [...h.chain.stats.sends.values()][0];
    h.clock.advance(120_000);
    await h.runUntil(() => true);
    expect([...h.chain.stats.sends.values()][0]).toBe(sendsAtDecision);
    expect(h.swap.builds).toBe(1);
    expect((await h.journal.get('int-1'))?.state).toBe('FAILED_ON_CHAIN');
  });

  it('treats RPC errors during confirmation as unknown and still lands exactly once', async () => {
    h = await createHarness();
    await startHarness(h);
    h.chain.failNext('getSignatureStatuses', 25);
    h.chain.failNext('getBlockHeight', 25);
    h.chain.failNext('sendTransaction', 3);
    h.chain.failNext('getTransaction', 4);
    await h.executor.submit(h.intent(1));
    await h.runUntil(settled('int-1'));
    expect(reportTypes(h, 'int-1')).toEqual(['accepted', 'filled']);
    expect(h.swap.builds).toBe(1);
    expect(h.chain.stats.landed).toHaveLength(1);
  });

  it('never expires a transaction while the deciding history query errors', async () => {
    h = await createHarness();
    await startHarness(h);
    h.chain.fates.push({ kind: 'drop' });
    await h.executor.submit(h.intent(1));
    // run until past the expiry margin, then make every status read fail for a while
    await h.runUntil(() => h.chain.height() > 150);
    h.chain.failNext('getSignatureStatuses', 100);
    await h.runUntil(() => h.chain.height() > 190);
    expect(h.swap.builds).toBe(1);
    expect((await h.journal.get('int-1'))?.state).toBe('SENT');
    await h.runUntil(settled('int-1'));
    expect(h.swap.builds).toBe(2);
    expect(h.chain.stats.landed).toHaveLength(1);
  });

  it('accepts a status that jumps straight to finalized', async () => {
    h = await createHarness();
    await startHarness(h);
    h.chain.jumpToFinalized = true;
    await h.executor.submit(h.intent(1));
    await h.runUntil(settled('int-1'));
    expect(reportTypes(h, 'int-1')).toEqual(['accepted', 'filled']);
    expect(h.chain.stats.landed).toHaveLength(1);
  });

  it('gives up after maxAttempts expired transactions, ramping slippage up to the cap', async () => {
    h = await createHarness({ settings: { maxAttempts: 3, slippageStepBps: 400, maxSlippageBps: 600 } });
    await startHarness(h);
    h.chain.fates.push({ kind: 'drop' }, { kind: 'drop' }, { kind: 'drop' });
    await h.executor.submit(h.intent(1));
    await h.runUntil(settled('int-1'));
    expect(reportTypes(h, 'int-1')).toEqual(['accepted', 'expired']);
    const rec = await h.journal.get('int-1');
    expect(rec?.attempts.map((a) => a.slippageBps)).toEqual([100, 500, 600]);
    expect(rec?.state).toBe('EXPIRED');
    expect(rec?.done).toBe(true);
    expect(h.chain.stats.landed).toHaveLength(0);
  });

  it('sells tokens and reports the SOL received', async () => {
    h = await createHarness();
    await startHarness(h);
    await h.executor.submit(h.intent(1));
    await h.runUntil(settled('int-1'));
    const tokens = h.chain.tokensOf(h.wallet, h.mint);
    const before = h.chain.lamportsOf(h.wallet);
    await h.executor.submit(h.intent(2, { side: 'sell', sellRaw: tokens / 2n }));
    await h.runUntil(settled('int-2'));
    const fill = filled('int-2');
    expect(fill.tokenAmount).toBe(tokens / 2n);
    expect(h.chain.lamportsOf(h.wallet) - before).toBe(fill.solAmount - fill.feeLamports);
    expect(fill.solAmount).toBeGreaterThan(0n);
    expect(fill.rentLamports).toBeUndefined(); // the token account already existed
  });

  it('inspects, signs and lands a legacy (non-versioned) transaction from the swap service too', async () => {
    h = await createHarness();
    await startHarness(h);
    h.swap.mode = 'legacy';
    await h.executor.submit(h.intent(1));
    await h.runUntil(settled('int-1'));
    expect(reportTypes(h, 'int-1')).toEqual(['accepted', 'filled']);
    expect(filled('int-1').tokenAmount).toBe(h.chain.tokensOf(h.wallet, h.mint));
  });

  it('treats a second submit of the same intent as the same intent, and reports another intent under a journaled id', async () => {
    h = await createHarness();
    await startHarness(h);
    const first = h.intent(1);
    await h.executor.submit(first);
    await h.executor.submit(first);
    await h.runUntil(settled('int-1'));
    await h.executor.submit(first);
    await h.runUntil(() => true);
    expect(reportTypes(h, 'int-1')).toEqual(['accepted', 'filled']);
    // A different decision under the same id (another run's, say) is rejected, never left pending.
    await h.executor.submit(h.intent(1, { spendLamports: 50_000_000n }));
    expect(h.reports.at(-1)).toMatchObject({ type: 'rejected', intentId: 'int-1', code: 'LIVE_INTENT_ID_REPEATED' });
    expect(h.swap.builds).toBe(1);
  });

  it('refuses intents before start and rejects invalid ones without throwing', async () => {
    h = await createHarness();
    await expect(h.executor.submit(h.intent(1))).rejects.toMatchObject({ code: 'LIVE_NOT_STARTED' });
    await startHarness(h);
    await h.executor.submit(h.intent(2, { spendLamports: 0n }));
    await h.executor.submit(h.intent(3, { mint: 'not-a-mint' }));
    await h.executor.submit(h.intent(4, { side: 'sell', sellRaw: 0n }));
    expect(h.reports.map((r) => r.type === 'rejected' && r.code)).toEqual(['LIVE_INVALID_INTENT', 'LIVE_INVALID_INTENT', 'LIVE_INVALID_INTENT']);
    expect(h.reports.map((r) => (r.type === 'rejected' ? r.reason : '')).filter((m) => m.includes('must be a bigint > 0'))).toEqual([
      expect.stringContaining('spendLamports must be a bigint > 0') as unknown,
      expect.stringContaining('sellRaw must be a bigint > 0') as unknown,
    ]);
    expect(h.swap.builds).toBe(0);
  });

  it('writes one log line per refusal code per minute of the run clock, with the count held back, and reports every refusal', async () => {
    const lines: { msg: string; code?: string; repeated?: number }[] = [];
    const logger = pino({ level: 'warn', base: undefined }, { write: (l: string) => void lines.push(JSON.parse(l) as { msg: string }) });
    h = await createHarness({ logger });
    await startHarness(h);
    for (let i = 0; i < 200; i++) await h.executor.submit(h.intent(100 + i, { spendLamports: 0n }));
    expect(h.reports.filter((r) => r.type === 'rejected' && r.code === 'LIVE_INVALID_INTENT')).toHaveLength(200);
    const refusals = (): typeof lines => lines.filter((l) => l.code === 'LIVE_INVALID_INTENT');
    expect(refusals()).toHaveLength(1);
    h.clock.advance(61_000);
    await h.executor.submit(h.intent(400, { spendLamports: 0n }));
    expect(refusals()).toHaveLength(2);
    expect(refusals()[1]?.repeated).toBe(199);
  });
});
