/**
 * The simulator's swap service in its v0 mode (issue 38): every swap is a versioned transaction
 * that loads the pool's token vault and the mint from the pool's address lookup table on the
 * ledger. Against the live executor on the simulator's real ledger: simulate mode resolves the
 * table through RPC, signs, and the buy and the sell land; static mode cannot resolve it and
 * refuses before signing.
 */
import { LAMPORTS_PER_SOL, VersionedTransaction, type Keypair } from '@solana/web3.js';
import BigNumber from 'bignumber.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bps, Lamports, UnixMs } from '../../src/core/units.js';
import type { ExecutionReport } from '../../src/engine/orders/execution-port.js';
import type { InspectionMode } from '../../src/executors/live/inspect.js';
import { orderIntent, type IntentDraft } from '../helpers/intents.js';
import type { Harness } from '../sim-ledger/harness.js';
import { startSimLive, type SimLive } from './support/sim-live.js';

const SPEND = 200_000_000n;

describe.each<InspectionMode>(['simulate', 'static'])('an honest swap service answering v0 transactions with a lookup table, inspection mode %s', (mode) => {
  let live: SimLive;
  let sim: Harness;
  let wallet: Keypair;
  let mint: string;
  let sends = 0;
  let n = 0;

  const submit = (over: Partial<IntentDraft>): Promise<ExecutionReport> => {
    const side = over.side ?? 'buy';
    const amountIn = side === 'buy' ? SPEND : (over.sellRaw ?? 0n);
    const q = sim.market.quote(mint, side, amountIn)!;
    const [lamports, raw] = side === 'buy' ? [amountIn, q.amountOut] : [q.amountOut, amountIn];
    return live.submit(
      orderIntent({
        id: `v0-${++n}`,
        strategyId: 'sim',
        side,
        mint,
        decimals: 6,
        spendLamports: SPEND,
        slippageBps: 300 as Bps,
        priorityFeeLamports: 100_000n as Lamports,
        referencePrice: new BigNumber(lamports.toString()).div(1e9).div(new BigNumber(raw.toString()).div(1e6)).toFixed(30),
        createdAt: sim.clock.now() as UnixMs,
        reason: 'test',
        ...over,
      }),
    );
  };

  beforeAll(async () => {
    live = await startSimLive({
      validBlocks: 30,
      tmpPrefix: 'chainpilot-v0-',
      mints: 1,
      swapTransactions: 'v0',
      settings: { maxDayLamports: 9n * BigInt(LAMPORTS_PER_SOL), inspection: mode },
      onSend: () => void sends++,
    });
    ({ sim, wallet } = live);
    mint = live.mints[0]!;
  });

  afterAll(() => live.close());

  if (mode === 'simulate') {
    it('signs and lands a buy and a sell whose pool vault and mint are loaded from the table', async () => {
      const buy = await submit({});
      expect(buy).toMatchObject({ type: 'filled' });
      if (buy.type !== 'filled') return;
      expect(buy.fill.tokenAmount).toBeGreaterThan(0n);
      const landed = sim.ledger.transaction(buy.fill.signature!, 'confirmed');
      expect(landed?.version).toBe(0);
      const tx = VersionedTransaction.deserialize(landed!.bytes);
      expect(tx.message.addressTableLookups).toHaveLength(1);
      const vault = sim.ledger.poolAccounts(sim.market.pool(mint)!).tokenVaultAddress;
      const statics = tx.message.staticAccountKeys.map((k) => k.toBase58());
      expect(statics).not.toContain(vault); // the vault and the mint came from the table
      expect(statics).not.toContain(mint);
      expect(sim.ledger.tokenAccountsByOwner(wallet.publicKey.toBase58(), mint).length).toBe(1);

      const sell = await submit({ side: 'sell', sellRaw: buy.fill.tokenAmount });
      expect(sell).toMatchObject({ type: 'filled' });
      if (sell.type !== 'filled') return;
      expect(sell.fill.solAmount).toBeGreaterThan(0n);
      expect(sim.ledger.transaction(sell.fill.signature!, 'confirmed')?.version).toBe(0);
    });
  } else {
    it('refuses the swap before signing: a base-program instruction names a table-loaded account', async () => {
      const owner = wallet.publicKey.toBase58();
      const lamportsBefore = sim.ledger.balance(owner);
      const r = await submit({});
      expect(r).toMatchObject({ type: 'rejected', code: 'LIVE_INSPECTION_INSTRUCTION' });
      if (r.type !== 'rejected') return;
      expect(r.reason).toMatch(
        /^instruction #\d+ \((AssociatedToken CreateIdempotent|Token Transfer)\) names an account loaded from an address lookup table \(lookup:\w+#\d+\), which static inspection does not resolve: use simulate mode$/,
      );
      expect(sends).toBe(0);
      expect(sim.ledger.balance(owner)).toBe(lamportsBefore);
    });
  }
});
