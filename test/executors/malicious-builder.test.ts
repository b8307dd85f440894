/**
 * A malicious swap builder in the simulator, one variant at a time, against the live executor on
 * the simulator's real ledger: each is rejected before signing, with a reason that names the
 * instruction, in both inspection modes; nothing is signed, sent or moved.
 */
import { LAMPORTS_PER_SOL, type Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bps, Lamports, UnixMs } from '../../src/core/units.js';
import type { ExecutionReport } from '../../src/engine/orders/execution-port.js';
import { orderIntent, type IntentDraft } from '../helpers/intents.js';
import type { IntentJournal } from '../../src/executors/journal/journal.js';
import type { InspectionMode } from '../../src/executors/live/inspect.js';
import type { MaliciousSwapVariant } from '../../src/sim/ledger/faults.js';
import type { Harness } from '../sim-ledger/harness.js';
import { startSimLive, type SimLive } from './support/sim-live.js';

const variants: [MaliciousSwapVariant, string, RegExp][] = [
  ['solTransfer', 'System Transfer', /moves 10000000 lamports from our wallet/],
  ['tokenTransfer', 'Token Transfer', /moves \d+ raw tokens out of our token account \w+, which is not the intended input/],
  ['approve', 'Token Approve', /delegates our token account \w+ to \w+/],
  ['setAuthority', 'Token SetAuthority', /re-assigns an authority of our account \w+/],
  ['closeAccount', 'Token CloseAccount', /closes our token account \w+, which is neither the intended input nor the output/],
  ['transferWithFee', 'Token-2022 TransferCheckedWithFee', /moves 1000000 raw tokens out of our token account \w+, which is not the intended input/],
];

describe.each<InspectionMode>(['simulate', 'static'])('a malicious swap builder, inspection mode %s', (mode) => {
  let live: SimLive;
  let sim: Harness;
  let wallet: Keypair;
  let journal: IntentJournal;
  let victimMint: string;
  let mint: string;
  let sends = 0;
  let n = 0;

  const submit = (over: Partial<IntentDraft>): Promise<ExecutionReport> =>
    live.submit(
      orderIntent({
        id: `m-${++n}`,
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

  beforeAll(async () => {
    live = await startSimLive({
      validBlocks: 30,
      tmpPrefix: 'chainpilot-malicious-',
      mints: 2,
      settings: { maxDayLamports: 9n * BigInt(LAMPORTS_PER_SOL), inspection: mode },
      onSend: () => void sends++,
    });
    ({ sim, wallet, journal } = live);
    [victimMint, mint] = live.mints as [string, string];
    // The victim: a token account of another mint that our wallet owns.
    expect((await submit({ mint: victimMint })).type).toBe('filled');
  });

  afterAll(() => live.close());

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
