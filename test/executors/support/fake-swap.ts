/**
 * A fake swap service over the fake chain: builds real, unsigned v0 transactions calling the fake
 * venue program. Malicious modes build what a compromised swap service might send.
 */
import {
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from '../../../src/client/spl-token.js';
import { toRaw } from '../../../src/core/decimal.js';
import { ChainpilotError } from '../../../src/core/errors.js';
import { WSOL_MINT, type BuiltSwap, type SwapBuilderPort, type SwapRequest } from '../../../src/executors/live/ports.js';
import { FAKE_SWAP_PROGRAM, type FakeChain } from './fake-chain.js';

export type SwapMode = 'honest' | 'legacy' | 'drain' | 'foreign-payer' | 'unknown-program' | 'greedy-fee' | 'wrong-output' | 'oversell' | 'siphon';

export const ATTACKER = Keypair.fromSeed(new Uint8Array(32).fill(9)).publicKey;

export interface FakeSwap extends SwapBuilderPort {
  mode: SwapMode;
  builds: number;
  /** Errors thrown by the next builds. */
  failNext: number;
  /**
   * `siphon` mode: the venue instruction sells this other mint of the wallet instead (a venue
   * program moving a token account the base-program checks cannot see; only simulation can).
   */
  siphonMint?: PublicKey;
}

export function createFakeSwap(chain: FakeChain, decimalsOf: (mint: string) => number): FakeSwap {
  const swap: FakeSwap = {
    mode: 'honest',
    builds: 0,
    failNext: 0,
    async buildSwap(req: SwapRequest): Promise<BuiltSwap> {
      swap.builds++;
      if (swap.failNext > 0) {
        swap.failNext--;
        throw new ChainpilotError('HTTP_TIMEOUT', 'fake swap service unavailable', { retry: 'retryable' });
      }
      const wallet = new PublicKey(req.wallet);
      const buy = req.from === WSOL_MINT;
      const asked = new PublicKey(buy ? req.to : req.from);
      const mint = swap.mode === 'siphon' && swap.siphonMint ? swap.siphonMint : asked;
      let amountIn = buy ? toRaw(req.amount, 9) : toRaw(req.amount, decimalsOf(mint.toBase58()));
      if (swap.mode === 'oversell') amountIn *= 2n;
      const feeLamports = toRaw(req.priorityFeeSol, 9) * (swap.mode === 'greedy-fee' ? 10n : 1n);
      const units = 200_000;
      const microLamports = (feeLamports * 1_000_000n) / BigInt(units);
      const ours = getAssociatedTokenAddressSync(mint, wallet, true, TOKEN_PROGRAM_ID);
      const theirs = getAssociatedTokenAddressSync(mint, ATTACKER, true, TOKEN_PROGRAM_ID);
      const data = Buffer.alloc(17);
      data[0] = buy ? 0 : 1;
      data.writeBigUInt64LE(amountIn, 1);
      data.writeBigUInt64LE(0n, 9); // minOut: the fake venue relies on the slippage the caller gave
      const dest = buy ? (swap.mode === 'wrong-output' ? theirs : ours) : swap.mode === 'wrong-output' ? ATTACKER : wallet;
      const program = swap.mode === 'unknown-program' ? Keypair.fromSeed(new Uint8Array(32).fill(3)).publicKey : FAKE_SWAP_PROGRAM;
      const ixs: TransactionInstruction[] = [
        ComputeBudgetProgram.setComputeUnitLimit({ units }),
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports }),
        new TransactionInstruction({
          programId: program,
          keys: [
            { pubkey: wallet, isSigner: true, isWritable: true },
            { pubkey: mint, isSigner: false, isWritable: false },
            { pubkey: dest, isSigner: false, isWritable: true },
            { pubkey: ATTACKER, isSigner: false, isWritable: false },
            { pubkey: ours, isSigner: false, isWritable: true },
            // A real venue moves tokens through the token program, so it must pass its account.
            { pubkey: TOKEN_PROGRAM_ID, isSigner: false, isWritable: false },
          ],
          data,
        }),
      ];
      if (swap.mode === 'drain') ixs.push(SystemProgram.transfer({ fromPubkey: wallet, toPubkey: ATTACKER, lamports: 1_000_000_000n }));
      const payerKey = swap.mode === 'foreign-payer' ? ATTACKER : wallet;
      const recentBlockhash = chain.latestBlockhash();
      if (swap.mode === 'legacy') {
        const legacy = new Transaction({ feePayer: payerKey, recentBlockhash }).add(...ixs);
        const raw = legacy.serialize({ requireAllSignatures: false, verifySignatures: false });
        return { transaction: legacy, raw, base64: Buffer.from(raw).toString('base64') };
      }
      const message = new TransactionMessage({ payerKey, recentBlockhash, instructions: ixs }).compileToV0Message();
      const transaction = new VersionedTransaction(message);
      const raw = transaction.serialize();
      return { transaction, raw, base64: Buffer.from(raw).toString('base64') };
    },
  };
  return swap;
}
