/**
 * A hostile swap service in the simulator (the honest swap with one change, per variant), against
 * the live executor on the simulator's real ledger, in both inspection modes: each variant is
 * refused before signing with a reason that names the instruction or the balance and the numbers;
 * nothing is signed, sent or moved. Honest swaps with the same reference prices still sign and land.
 */
import { LAMPORTS_PER_SOL, type Keypair } from '@solana/web3.js';
import BigNumber from 'bignumber.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bps, Lamports, UnixMs } from '../../src/core/units.js';
import type { ExecutionReport } from '../../src/engine/orders/execution-port.js';
import { orderIntent, type IntentDraft } from '../helpers/intents.js';
import type { IntentJournal } from '../../src/executors/journal/journal.js';
import type { InspectionMode } from '../../src/executors/live/inspect.js';
import type { HostileSwapVariant } from '../../src/sim/ledger/faults.js';
import { readTokenAccount } from '../../src/sim/ledger/spl-accounts.js';
import type { Harness } from '../sim-ledger/harness.js';
import { startSimLive, type SimLive } from './support/sim-live.js';

const SPEND = 200_000_000n;

type Expect = readonly [code: string, reason: RegExp];
/** Variant, side, then the refusal in simulate and in static mode. */
const variants: [HostileSwapVariant, 'buy' | 'sell', Expect, Expect][] = [
  [
    'sellToStranger',
    'sell',
    ['LIVE_INSPECTION_OUTPUT', /^simulation pays 1 lamports to our wallet for \d+ raw \w+ .*; the intent accepts at least \d{5,}/],
    ['LIVE_INSPECTION_OUTPUT', /^static inspection proves 1 lamports arriving from instruction #\d+ System Transfer; the intent accepts at least \d{5,}/],
  ],
  [
    'extraSol2m',
    'sell',
    ['LIVE_INSPECTION_INSTRUCTION', /^instruction #\d+ \(System Transfer\) moves 2000000 lamports from our wallet .*beyond the intended input \(0;/],
    ['LIVE_INSPECTION_INSTRUCTION', /^instruction #\d+ \(System Transfer\) moves 2000000 lamports from our wallet .*beyond the intended input \(0;/],
  ],
  [
    'extraSol2m',
    'buy',
    [
      'LIVE_INSPECTION_INSTRUCTION',
      /^instruction #\d+ \(System Transfer\) moves 2000000 lamports .*would reach 202000000, beyond the intended input \(200000000;/,
    ],
    [
      'LIVE_INSPECTION_INSTRUCTION',
      /^instruction #\d+ \(System Transfer\) moves 2000000 lamports .*would reach 202000000, beyond the intended input \(200000000;/,
    ],
  ],
  [
    'underpay',
    'buy',
    ['LIVE_INSPECTION_OUTPUT', /^simulation delivers 1 raw \w+ to token accounts our wallet owns; the intent accepts at least \d{6,}/],
    ['LIVE_INSPECTION_OUTPUT', /^static inspection proves 1 raw \w+ arriving from instruction #\d+ Token Transfer; the intent accepts at least \d{6,}/],
  ],
  [
    'otherMint',
    'buy',
    [
      'LIVE_INSPECTION_INSTRUCTION',
      /^instruction #\d+ \(AssociatedToken CreateIdempotent\) pays rent from our wallet for a token account of mint \w+, which is neither/,
    ],
    [
      'LIVE_INSPECTION_INSTRUCTION',
      /^instruction #\d+ \(AssociatedToken CreateIdempotent\) pays rent from our wallet for a token account of mint \w+, which is neither/,
    ],
  ],
  [
    'durableNonce',
    'buy',
    ['LIVE_INSPECTION_INSTRUCTION', /^instruction #3 \(System AdvanceNonceAccount\) advances a durable nonce/],
    ['LIVE_INSPECTION_INSTRUCTION', /^instruction #3 \(System AdvanceNonceAccount\) advances a durable nonce/],
  ],
  [
    'unknownProgram',
    'buy',
    ['LIVE_INSPECTION_PROGRAM', /^instruction calls program \w+ which is not in/],
    ['LIVE_INSPECTION_PROGRAM', /^instruction calls program \w+ which is not in/],
  ],
  [
    'foreignPayer',
    'buy',
    ['LIVE_INSPECTION_FEE_PAYER', /^fee payer is \w+, expected our wallet/],
    ['LIVE_INSPECTION_FEE_PAYER', /^fee payer is \w+, expected our wallet/],
  ],
  [
    'hugePriorityFee',
    'buy',
    ['LIVE_INSPECTION_PRIORITY_FEE', /^priority fee \d+ lamports exceeds the intent budget 100000/],
    ['LIVE_INSPECTION_PRIORITY_FEE', /^priority fee \d+ lamports exceeds the intent budget 100000/],
  ],
  [
    'token2022Fee',
    'buy',
    // The simulator's ledger runs no Token-2022 mint: the simulation fails, so nothing is signed.
    ['LIVE_INSPECTION_SIMULATION', /^simulation returned error/],
    [
      'LIVE_INSPECTION_OUTPUT',
      /^static inspection proves 1 raw \w+ arriving from instruction #\d+ Token-2022 TransferCheckedWithFee; the intent accepts at least \d{6,}/,
    ],
  ],
  [
    'delegateTakeBack',
    'buy',
    [
      'LIVE_INSPECTION_INSTRUCTION',
      /^instruction #\d+ \(Token-2022 TransferChecked\) moves \d+ raw tokens out of our token account \w+ on the signature of \w+, not our wallet/,
    ],
    [
      'LIVE_INSPECTION_INSTRUCTION',
      /^instruction #\d+ \(Token-2022 TransferChecked\) moves \d+ raw tokens out of our token account \w+ on the signature of \w+, not our wallet/,
    ],
  ],
  [
    'delegateBurn',
    'buy',
    ['LIVE_INSPECTION_INSTRUCTION', /^instruction #\d+ \(Token-2022 Burn\) moves, burns, freezes or re-configures an account of our wallet/],
    ['LIVE_INSPECTION_INSTRUCTION', /^instruction #\d+ \(Token-2022 Burn\) moves, burns, freezes or re-configures an account of our wallet/],
  ],
  [
    'extraSigners',
    'buy',
    ['LIVE_INSPECTION_SIGNERS', /^the transaction requires 12 signatures, ours and 11 others \(.*\); at most 1 co-signer\(s\) may sign with us/],
    ['LIVE_INSPECTION_SIGNERS', /^the transaction requires 12 signatures, ours and 11 others \(.*\); at most 1 co-signer\(s\) may sign with us/],
  ],
  [
    // A take-back in a v0 transaction, our account only in its lookup table: simulate mode reads
    // the table over RPC and finds our account; static mode cannot read it, and refuses.
    'lookupTakeBack',
    'buy',
    [
      'LIVE_INSPECTION_INSTRUCTION',
      /^instruction #5 \(Token Transfer\) moves \d+ raw tokens out of our token account [1-9A-HJ-NP-Za-km-z]{32,44} on the signature of \w+, not our wallet$/,
    ],
    [
      'LIVE_INSPECTION_INSTRUCTION',
      /^instruction #4 \(Token Transfer\) names an account loaded from an address lookup table \(lookup:\w+#\d+\), which static inspection does not resolve: use simulate mode$/,
    ],
  ],
];

describe.each<InspectionMode>(['simulate', 'static'])('a hostile swap service, inspection mode %s', (mode) => {
  let live: SimLive;
  let sim: Harness;
  let wallet: Keypair;
  let journal: IntentJournal;
  let mint: string;
  let sends = 0;
  let n = 0;

  /** SOL per whole token the market quotes now for this trade (the engine's reference price). */
  const priceOf = (side: 'buy' | 'sell', amountIn: bigint): string => {
    const q = sim.market.quote(mint, side, amountIn)!;
    const [lamports, raw] = side === 'buy' ? [amountIn, q.amountOut] : [q.amountOut, amountIn];
    return new BigNumber(lamports.toString()).div(1e9).div(new BigNumber(raw.toString()).div(1e6)).toFixed(30);
  };
  const submit = (over: Partial<IntentDraft>): Promise<ExecutionReport> => {
    const side = over.side ?? 'buy';
    return live.submit(
      orderIntent({
        id: `h-${++n}`,
        strategyId: 'sim',
        side,
        mint,
        decimals: 6,
        spendLamports: SPEND,
        slippageBps: 300 as Bps,
        priorityFeeLamports: 100_000n as Lamports,
        referencePrice: priceOf(side, side === 'buy' ? SPEND : (over.sellRaw ?? 0n)),
        createdAt: sim.clock.now() as UnixMs,
        reason: 'test',
        ...over,
      }),
    );
  };

  beforeAll(async () => {
    // The first token is the other mint of `otherMint`.
    live = await startSimLive({
      validBlocks: 30,
      tmpPrefix: 'chainpilot-hostile-',
      mints: 2,
      settings: { maxDayLamports: 9n * BigInt(LAMPORTS_PER_SOL), inspection: mode },
      onSend: () => void sends++,
    });
    ({ sim, wallet, journal } = live);
    mint = live.mints[1]!;
    expect((await submit({})).type).toBe('filled'); // tokens to sell
  });

  afterAll(() => live.close());

  it.each(variants)('refuses the %s variant on a %s before signing', async (variant, side, simulate, statics) => {
    const [code, reason] = mode === 'simulate' ? simulate : statics;
    const owner = wallet.publicKey.toBase58();
    const sendsBefore = sends;
    const lamportsBefore = sim.ledger.balance(owner);
    const accountsBefore = sim.ledger.tokenAccountsByOwner(owner).map((a) => `${a.address}:${Buffer.from(a.data).toString('hex')}`);
    const sellRaw = side === 'sell' ? 1_000_000_000n : undefined;
    sim.ledger.faults.inject({ kind: 'hostileSwap', variant });
    const r = await submit(sellRaw === undefined ? {} : { side, sellRaw });
    expect(r).toMatchObject({ type: 'rejected', code });
    if (r.type !== 'rejected') return;
    expect(r.reason).toMatch(reason);
    expect(sends).toBe(sendsBefore);
    expect((await journal.get(r.intentId))?.attempts).toHaveLength(0);
    expect(sim.ledger.balance(owner)).toBe(lamportsBefore);
    expect(sim.ledger.tokenAccountsByOwner(owner).map((a) => `${a.address}:${Buffer.from(a.data).toString('hex')}`)).toEqual(accountsBefore);
  });

  it('refuses a sell that takes our tokens, pays nothing and closes our account: its rent is not proceeds (closeForRent)', async () => {
    const owner = wallet.publicKey.toBase58();
    const held = (): bigint =>
      sim.ledger.tokenAccountsByOwner(owner).reduce((sum, a) => {
        const t = readTokenAccount(a.owner, a.data);
        return t?.mint === mint ? sum + t.amountRaw : sum;
      }, 0n);
    // The close lands only on an emptied account: keep exactly the 1 000 000 raw the case sells.
    expect((await submit({ side: 'sell', sellRaw: held() - 1_000_000n })).type).toBe('filled');
    expect(held()).toBe(1_000_000n);
    const sendsBefore = sends;
    const lamportsBefore = sim.ledger.balance(owner);
    sim.ledger.faults.inject({ kind: 'hostileSwap', variant: 'closeForRent' });
    // Reference 0.001 SOL per token, 1 % slippage: minOut 990 000 lamports, under the account's rent.
    const r = await submit({ side: 'sell', sellRaw: 1_000_000n, referencePrice: '0.001', slippageBps: 100 as Bps });
    expect(r).toMatchObject({ type: 'rejected', code: 'LIVE_INSPECTION_OUTPUT' });
    if (r.type !== 'rejected') return;
    expect(r.reason).toMatch(
      mode === 'simulate'
        ? /^simulation pays 0 lamports to our wallet for 1000000 raw \w+ \(balance change 1934280 \+ fee 105000 - rent 2039280 returned by closing our token account\); the intent accepts at least 990000$/
        : /^static inspection proves 0 lamports arriving from no instruction; the intent accepts at least 990000/,
    );
    expect(sends).toBe(sendsBefore);
    expect(sim.ledger.balance(owner)).toBe(lamportsBefore);
    expect(held()).toBe(1_000_000n);
  });

  it('still signs and lands an honest buy and an honest sell with the same reference prices and slippage', async () => {
    const buy = await submit({});
    expect(buy.type).toBe('filled');
    if (buy.type !== 'filled') return;
    const sell = await submit({ side: 'sell', sellRaw: buy.fill.tokenAmount });
    expect(sell.type).toBe('filled');
  });
});
