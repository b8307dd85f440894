import { ComputeBudgetProgram, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { manualClock, seededRandom } from '../../src/core/index.js';
import { createLedger, WRAPPED_SOL_MINT } from '../../src/sim/ledger/index.js';
import { createSwapBuilder, SWAP_CU_LIMIT } from '../../src/sim/swap/swap-builder.js';
import { parseSwapRequest } from '../../src/sim/swap/swap-request.js';
import { fakeMarket } from './fake-market.js';

// Signer and writable flags are the message's (a decoded instruction shows the transaction-wide
// ones), so the comparison is program, accounts in order, and data bytes.
const shape = (ix: TransactionInstruction) => ({
  program: ix.programId.toBase58(),
  keys: ix.keys.map((k) => k.pubkey.toBase58()),
  data: [...ix.data],
});

describe('the swap builder', () => {
  it('encodes its compute-budget and SOL transfer instructions exactly as web3.js does, on buys and sells', () => {
    const market = fakeMarket('builder');
    const mint = market.launch(30n * BigInt(LAMPORTS_PER_SOL), 10n ** 15n, 6);
    const ledger = createLedger({ market, clock: manualClock(0), random: seededRandom('builder') });
    try {
      const builder = createSwapBuilder({ market, ledger, random: seededRandom('builder-b') });
      const wallet = Keypair.fromSeed(new Uint8Array(32).fill(3)).publicKey;
      const pool = ledger.poolAccounts(market.pool(mint)!);
      const build = (from: string, to: string, amount: string) =>
        Transaction.from(
          Buffer.from(builder.build(parseSwapRequest({ wallet: wallet.toBase58(), from, to, amount, slippage: 1, priorityFee: 0.0001 })).txn, 'base64'),
        );
      const microLamports = (100_000n * 1_000_000n) / BigInt(SWAP_CU_LIMIT);
      const budget = [ComputeBudgetProgram.setComputeUnitLimit({ units: SWAP_CU_LIMIT }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports })].map(
        shape,
      );

      const buy = build(WRAPPED_SOL_MINT, mint, '0.5');
      expect(buy.instructions.slice(0, 2).map(shape)).toEqual(budget);
      expect(shape(buy.instructions[3]!)).toEqual(
        shape(SystemProgram.transfer({ fromPubkey: wallet, toPubkey: pool.authority.publicKey, lamports: LAMPORTS_PER_SOL / 2 })),
      );

      const sell = build(mint, WRAPPED_SOL_MINT, '1000');
      expect(sell.instructions.slice(0, 2).map(shape)).toEqual(budget);
      const payout = sell.instructions[3]!;
      const lamports = Buffer.from(payout.data).readBigUInt64LE(4);
      expect(lamports).toBeGreaterThan(0n);
      expect(shape(payout)).toEqual(shape(SystemProgram.transfer({ fromPubkey: pool.authority.publicKey, toPubkey: wallet, lamports })));
    } finally {
      ledger.stop();
    }
  });
});
