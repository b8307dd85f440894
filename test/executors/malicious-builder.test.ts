/**
 * A malicious swap builder in the simulator, one variant at a time, against the live executor on
 * the simulator's real ledger: each is rejected before signing, with a reason that names the
 * instruction, in both inspection modes; nothing is signed, sent or moved.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LAMPORTS_PER_SOL, type Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bps, Lamports, UnixMs } from '../../src/core/units.js';
import type { ExecutionReport } from '../../src/engine/orders/execution-port.js';
import { orderIntent, type IntentDraft } from '../helpers/intents.js';
import type { IntentJournal } from '../../src/executors/journal/journal.js';
import { openSqliteJournal } from '../../src/executors/journal/sqlite-journal.js';
import { createLiveExecutor, type LiveExecutor } from '../../src/executors/live/live-executor.js';
import type { InspectionMode } from '../../src/executors/live/inspect.js';
import type { LiveRpcPort } from '../../src/executors/live/ports.js';
import { keypairSigner } from '../../src/executors/signer/signer.js';
import { createRpcClient, createSwapClient, type RpcClient, type SwapClient } from '../../src/client/index.js';
import type { MaliciousSwapVariant } from '../../src/sim/ledger/faults.js';
import { API_KEY, startHarness, type Harness } from '../sim-ledger/harness.js';

const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

const variants: [MaliciousSwapVariant, string, RegExp][] = [
  ['solTransfer', 'System Transfer', /moves 10000000 lamports from our wallet/],
  ['tokenTransfer', 'Token Transfer', /moves \d+ raw tokens out of our token account \w+, which is not the intended input/],
  ['approve', 'Token Approve', /delegates our token account \w+ to \w+/],
  ['setAuthority', 'Token SetAuthority', /re-assigns an authority of our account \w+/],
  ['closeAccount', 'Token CloseAccount', /closes our token account \w+, which is neither the intended input nor the output/],
  ['transferWithFee', 'Token-2022 TransferCheckedWithFee', /moves 1000000 raw tokens out of our token account \w+, which is not the intended input/],
];

describe.each<InspectionMode>(['simulate', 'static'])('a malicious swap builder, inspection mode %s', (mode) => {
  let sim: Harness;
  let wallet: Keypair;
  let journal: IntentJournal;
  let executor: LiveExecutor;
  let rpc: RpcClient;
  let swap: SwapClient;
  let dir: string;
  let victimMint: string;
  let mint: string;
  let sends = 0;
  let n = 0;
  const reports: ExecutionReport[] = [];

  const runUntil = async (cond: () => boolean): Promise<void> => {
    for (let i = 0; i < 5_000; i++) {
      await new Promise<void>((r) => setTimeout(r, 2));
      if (cond()) return;
      const next = sim.clock.nextTimerAt();
      if (next !== undefined) sim.clock.advanceTo(next);
    }
    throw new Error('runUntil: condition not reached');
  };
  const submit = async (over: Partial<IntentDraft>): Promise<ExecutionReport> => {
    const id = `m-${++n}`;
    await executor.submit(
      orderIntent({
        id,
        strategyId: 'sim',
        side: 'buy',
        mint,
        decimals: 6,
        spendLamports: 200_000_000n,
        slippageBps: 100 as Bps,
        priorityFeeLamports: 100_000n as Lamports,
        referencePrice: undefined,
        createdAt: sim.clock.now() as UnixMs,
        reason: 'test',
        ...over,
      }),
    );
    await runUntil(() => reports.some((r) => r.intentId === id && r.type !== 'accepted'));
    return reports.find((r) => r.intentId === id && r.type !== 'accepted')!;
  };

  beforeAll(async () => {
    sim = await startHarness({ validBlocks: 30 });
    victimMint = sim.market.launch(30n * BigInt(LAMPORTS_PER_SOL), 1_000_000_000_000_000n, 6);
    mint = sim.market.launch(30n * BigInt(LAMPORTS_PER_SOL), 1_000_000_000_000_000n, 6);
    wallet = await sim.wallet(10);
    dir = mkdtempSync(join(tmpdir(), 'chainpilot-malicious-'));
    journal = openSqliteJournal({ path: join(dir, 'journal.sqlite') });
    rpc = createRpcClient({ url: sim.service.urls['rpc'] ?? '', apiKey: API_KEY, timeoutMs: 1_000 });
    swap = createSwapClient({ url: sim.service.urls['swap'] ?? '', timeoutMs: 5_000 });
    const counted: LiveRpcPort = {
      sendTransaction: (tx, o) => {
        sends++;
        return rpc.sendTransaction(tx, o);
      },
      getSignatureStatuses: (s, o) => rpc.getSignatureStatuses(s, o),
      getBlockHeight: (o) => rpc.getBlockHeight(o),
      simulateTransaction: (tx, o) => rpc.simulateTransaction(tx, o),
      getTransaction: (s, o) => rpc.getTransaction(s, o),
      getMultipleAccounts: (a, o) => rpc.getMultipleAccounts(a, o),
    };
    executor = createLiveExecutor({
      rpc: counted,
      swap,
      signer: keypairSigner(wallet),
      journal,
      clock: sim.clock,
      settings: {
        maxTradeLamports: 2n * BigInt(LAMPORTS_PER_SOL),
        maxDayLamports: 9n * BigInt(LAMPORTS_PER_SOL),
        allowedPrograms: [MEMO_PROGRAM],
        blockhashValidityBlocks: 30,
        inspection: mode,
      },
    });
    const started = executor.start((r) => reports.push(r));
    await runUntil(() => true);
    await started;
    // The victim: a token account of another mint that our wallet owns.
    expect((await submit({ mint: victimMint })).type).toBe('filled');
  });

  afterAll(async () => {
    await executor.stop(AbortSignal.abort());
    await journal.close();
    await rpc.close();
    await swap.close();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(variants)('rejects the %s variant before signing, naming %s', async (variant, name, what) => {
    const sendsBefore = sends;
    const lamportsBefore = sim.ledger.balance(wallet.publicKey.toBase58());
    const victimBefore = sim.ledger.tokenAccountsByOwner(wallet.publicKey.toBase58()).map((a) => `${a.address}:${Buffer.from(a.data).toString('hex')}`);
    sim.ledger.faults.inject({ kind: 'maliciousSwap', variant });
    const r = await submit({});
    expect(r.type).toBe('rejected');
    if (r.type !== 'rejected') return;
    expect(r.code).toBe('LIVE_INSPECTION_INSTRUCTION');
    expect(r.reason).toMatch(new RegExp(`^instruction #\\d+ \\(${name}\\) `));
    expect(r.reason).toMatch(what);
    expect(sends).toBe(sendsBefore);
    expect((await journal.get(r.intentId))?.attempts).toHaveLength(0);
    expect(sim.ledger.balance(wallet.publicKey.toBase58())).toBe(lamportsBefore);
    expect(sim.ledger.tokenAccountsByOwner(wallet.publicKey.toBase58()).map((a) => `${a.address}:${Buffer.from(a.data).toString('hex')}`)).toEqual(
      victimBefore,
    );
  });

  it('still lands an honest swap and a sell of it afterwards', async () => {
    const buy = await submit({});
    expect(buy.type).toBe('filled');
    if (buy.type !== 'filled') return;
    const sell = await submit({ side: 'sell', sellRaw: buy.fill.tokenAmount });
    expect(sell.type).toBe('filled');
  });
});
