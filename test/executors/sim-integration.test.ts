/**
 * The live executor against the embedded simulator's real ledger (LiteSVM behind JSON-RPC and the
 * swap service), with the simulator's own faults: real transactions, real signatures, real
 * balances and blockhash expiry.
 */
import { LAMPORTS_PER_SOL, PublicKey, type Keypair } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '../../src/client/spl-token.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bps, Lamports, UnixMs } from '../../src/core/units.js';
import type { ExecutionReport, Fill, OrderIntent } from '../../src/engine/orders/execution-port.js';
import { orderIntent, type IntentDraft } from '../helpers/intents.js';
import type { IntentJournal } from '../../src/executors/journal/journal.js';
import type { LiveExecutor } from '../../src/executors/live/live-executor.js';
import type { Harness as Ledger } from '../sim-ledger/harness.js';
import { startSimLive, type SimLive } from './support/sim-live.js';

const VALID_BLOCKS = 30;

interface World {
  live: SimLive;
  sim: Ledger;
  mint: string;
  wallet: Keypair;
  journal: IntentJournal;
  executor: LiveExecutor;
  reports: ExecutionReport[];
  sends: number;
}
let w: World | undefined;
afterEach(async () => {
  if (!w) return;
  await w.live.close();
  w = undefined;
});

async function world(): Promise<World> {
  const live = await startSimLive({
    validBlocks: VALID_BLOCKS,
    tmpPrefix: 'chainpilot-live-sim-',
    mints: 1,
    settings: { maxDayLamports: 5n * BigInt(LAMPORTS_PER_SOL), expiryMarginBlocks: 2 },
    onSend: () => void wd.sends++,
  });
  const { sim, wallet, journal, executor, reports } = live;
  const wd: World = { live, sim, mint: live.mints[0]!, wallet, journal, executor, reports, sends: 0 };
  return wd;
}

/** Moves the simulator's manual clock one timer at a time, letting real HTTP settle in between. */
const runUntil = (wd: World, cond: () => boolean, maxSteps = 5_000): Promise<void> => wd.live.runUntil(cond, maxSteps);

const intent = (wd: World, n: number, over: Partial<IntentDraft> = {}): OrderIntent =>
  orderIntent({
    id: `sim-${n}`,
    strategyId: 'sim',
    side: 'buy',
    mint: wd.mint,
    decimals: 6,
    spendLamports: 500_000_000n,
    slippageBps: 100 as Bps,
    priorityFeeLamports: 100_000n as Lamports,
    referencePrice: undefined,
    createdAt: wd.sim.clock.now() as UnixMs,
    reason: 'sim',
    ...over,
  });

const outcome = (wd: World, id: string) => () => wd.reports.some((r) => r.intentId === id && r.type !== 'accepted');
/** Every report in full (a rejection's code and reason included), so a failed expectation explains itself. */
const reportsText = (reports: readonly ExecutionReport[]): string => JSON.stringify(reports, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v), 2);
const fillOf = (wd: World, id: string): Fill => {
  const r = wd.reports.find((x) => x.intentId === id && x.type === 'filled');
  if (r?.type !== 'filled') throw new Error(`no fill for ${id}; reports: ${reportsText(wd.reports)}`);
  return r.fill;
};
const tokens = async (wd: World): Promise<bigint> => {
  const ata = getAssociatedTokenAddressSync(new PublicKey(wd.mint), wd.wallet.publicKey);
  const r = await wd.sim.connection.getTokenAccountBalance(ata).catch(() => undefined);
  return r ? BigInt(r.value.amount) : 0n;
};
const lamports = async (wd: World): Promise<bigint> => BigInt(await wd.sim.connection.getBalance(wd.wallet.publicKey));
const sends = (wd: World): number => wd.sends;

describe('live executor against the simulator ledger', () => {
  it('buys and sells with fills equal to what the ledger moved', async () => {
    w = await world();
    const sol0 = await lamports(w);
    await w.executor.submit(intent(w, 1));
    await runUntil(w, outcome(w, 'sim-1'));
    const buy = fillOf(w, 'sim-1');
    expect(buy.tokenAmount).toBe(await tokens(w));
    expect(sol0 - (await lamports(w))).toBe(buy.solAmount + buy.feeLamports);
    // The rent of the token account the buy opened is part of solAmount and named as rent.
    expect(buy.rentLamports).toBe(2_039_280n);
    expect(w.sim.market.landed).toHaveLength(1);
    // The journal keeps the slot the ledger put the swap in (from the deciding status read), not a clock reading.
    const buyRec = await w.journal.get('sim-1');
    const landedIn = await w.sim.connection.getTransaction(buyRec!.attempts[0]!.signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(landedIn?.slot).toBeGreaterThan(0);
    expect(buyRec?.landedSlot).toBe(landedIn?.slot);
    await w.executor.submit(intent(w, 2, { side: 'sell', sellRaw: buy.tokenAmount }));
    await runUntil(w, outcome(w, 'sim-2'));
    const sell = fillOf(w, 'sim-2');
    expect(sell.tokenAmount).toBe(buy.tokenAmount);
    expect(await tokens(w)).toBe(0n);
    expect(sol0 - (await lamports(w))).toBe(buy.solAmount + buy.feeLamports - sell.solAmount + sell.feeLamports);
  });

  it('lets a dropped transaction expire, then exactly one rebuild lands', async () => {
    w = await world();
    w.sim.ledger.faults.inject({ kind: 'drop' });
    await w.executor.submit(intent(w, 1));
    await runUntil(w, outcome(w, 'sim-1'));
    fillOf(w, 'sim-1');
    const rec = await w.journal.get('sim-1');
    expect(rec?.attempts.map((a) => a.state)).toEqual(['EXPIRED', 'LANDED']);
    expect(w.sim.market.landed).toHaveLength(1);
    expect(w.sim.market.landed[0]?.signature).toBe(rec?.attempts[1]?.signature);
  });

  it('waits for a transaction that lands in the last valid block and never builds a second one', async () => {
    w = await world();
    w.sim.ledger.faults.inject({ kind: 'late' });
    await w.executor.submit(intent(w, 1));
    await runUntil(w, outcome(w, 'sim-1'));
    fillOf(w, 'sim-1');
    expect((await w.journal.get('sim-1'))?.attempts).toHaveLength(1);
    expect(w.sim.market.landed).toHaveLength(1);
    expect(sends(w)).toBeGreaterThan(1); // the same bytes were re-broadcast while waiting
  });

  it('reports an on-chain failure with its fee and sends nothing more', async () => {
    w = await world();
    const sol0 = await lamports(w);
    w.sim.ledger.faults.inject({ kind: 'fail' });
    await w.executor.submit(intent(w, 1));
    await runUntil(w, outcome(w, 'sim-1'));
    const r = w.reports.find((x) => x.type === 'failed');
    expect(r?.type === 'failed' && r.feeLamports).toBe(sol0 - (await lamports(w)));
    const failedRec = await w.journal.get('sim-1');
    const failedIn = await w.sim.connection.getTransaction(failedRec!.attempts[0]!.signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(failedIn?.slot).toBeGreaterThan(0);
    expect(failedRec?.landedSlot).toBe(failedIn?.slot); // a failed swap landed too: its slot is kept
    const sent = sends(w);
    for (let i = 0; i < 50; i++) w.sim.slots(1);
    await runUntil(w, () => true);
    expect(sends(w)).toBe(sent);
    expect(w.sim.market.landed).toHaveLength(0);
  });

  it('rides out RPC errors and timeouts during confirmation and lands once', async () => {
    w = await world();
    for (let i = 0; i < 4; i++) w.sim.ledger.faults.inject({ kind: 'rpc', rpc: { kind: 'error', method: 'getSignatureStatuses' } });
    w.sim.ledger.faults.inject({ kind: 'rpc', rpc: { kind: 'timeout', method: 'sendTransaction', afterHandling: true } });
    w.sim.ledger.faults.inject({ kind: 'rpc', rpc: { kind: 'error', method: 'getBlockHeight' } });
    await w.executor.submit(intent(w, 1));
    await runUntil(w, outcome(w, 'sim-1'));
    fillOf(w, 'sim-1');
    expect((await w.journal.get('sim-1'))?.attempts).toHaveLength(1);
    expect(w.sim.market.landed).toHaveLength(1);
  });

  it('accepts a status that jumps straight to finalized', async () => {
    w = await world();
    w.sim.ledger.faults.inject({ kind: 'finalizeAtOnce' });
    await w.executor.submit(intent(w, 1));
    await runUntil(w, outcome(w, 'sim-1'));
    fillOf(w, 'sim-1');
    expect(w.sim.market.landed).toHaveLength(1);
  });

  it('gives two identical decisions two transactions, even when the swap service builds identical bytes', async () => {
    w = await world();
    const tokens0 = await tokens(w);
    // small enough that the first landing moves the price less than the 1 % slippage of the second
    await w.executor.submit(intent(w, 1, { spendLamports: 50_000_000n }));
    await w.executor.submit(intent(w, 2, { spendLamports: 50_000_000n })); // same request, same blockhash
    await runUntil(w, () => outcome(w!, 'sim-1')() && outcome(w!, 'sim-2')());
    const a = fillOf(w, 'sim-1');
    const b = fillOf(w, 'sim-2');
    expect(a.signature).not.toBe(b.signature);
    expect(w.sim.market.landed.map((l) => l.signature).sort()).toEqual([a.signature, b.signature].sort());
    expect((await tokens(w)) - tokens0).toBe(a.tokenAmount + b.tokenAmount);
  });

  it('rejects a malicious swap (extra transfer out of the wallet) before signing', async () => {
    w = await world();
    const sol0 = await lamports(w);
    w.sim.ledger.faults.inject({ kind: 'maliciousSwap' });
    await w.executor.submit(intent(w, 1));
    await runUntil(w, outcome(w, 'sim-1'));
    const r = w.reports.find((x) => x.type === 'rejected');
    expect(r?.type === 'rejected' && r.code).toBe('LIVE_INSPECTION_INSTRUCTION');
    expect(sends(w)).toBe(0);
    expect(await lamports(w)).toBe(sol0);
    expect((await w.journal.get('sim-1'))?.attempts).toHaveLength(0);
  });
});
