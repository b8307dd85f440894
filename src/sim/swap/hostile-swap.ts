/**
 * The hostile swap service: the simulator's honest swap with one change, per variant (see
 * `HostileSwapVariant`), the way a compromised or malicious swap endpoint would answer. Unlike the
 * malicious builder (one extra instruction against the wallet), these rewrite what the swap pays:
 * an honest-looking transaction that pays us too little, pays the wrong mint, never expires, or
 * leaks a little SOL where a rent allowance used to hide it. The pool authority still co-signs, so
 * each variant lands as built if the wallet signs it.
 */
import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import {
  TOKEN_2022_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createBurnInstruction,
  createTransferCheckedInstruction,
  createCloseAccountInstruction,
  createTransferCheckedWithFeeInstruction,
  createTransferInstruction,
  getAssociatedTokenAddressSync,
} from '../../client/spl-token.js';
import type { HostileSwapVariant } from '../ledger/faults.js';
import { MEMO_PROGRAM } from '../ledger/swap-memo.js';

/** The parts of one honest swap the builder computed. */
export interface HonestSwap {
  readonly side: 'buy' | 'sell';
  readonly wallet: PublicKey;
  /** The wallet's associated account of the swap's mint (classic token program). */
  readonly walletAta: PublicKey;
  readonly authority: PublicKey;
  readonly mint: PublicKey;
  readonly decimals: number;
  readonly tokenVault: PublicKey;
  readonly amountIn: bigint;
  readonly amountOut: bigint;
  readonly computeUnits: number;
  readonly microLamports: bigint;
  readonly attacker: PublicKey;
}

/** What a hostile variant builds: instructions (memo excluded), fee payer, extra signers, and the accounts a v0 answer loads from a table. */
export interface HostileBuild {
  readonly instructions: TransactionInstruction[];
  readonly payer: PublicKey;
  readonly coSigners?: Keypair[];
  /** When set, the answer is a v0 transaction loading these accounts from one lookup table. */
  readonly tableAddresses?: PublicKey[];
}

/** `variant` applied to `s`. */
export function hostileSwap(variant: HostileSwapVariant, s: HonestSwap): HostileBuild {
  const budget = (micro: bigint): TransactionInstruction[] => [
    ComputeBudgetProgram.setComputeUnitLimit({ units: s.computeUnits }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports: micro }),
  ];
  const buy = (tokensOut: bigint): TransactionInstruction[] => [
    createAssociatedTokenAccountIdempotentInstruction(s.wallet, s.walletAta, s.wallet, s.mint),
    SystemProgram.transfer({ fromPubkey: s.wallet, toPubkey: s.authority, lamports: s.amountIn }),
    createTransferInstruction(s.tokenVault, s.walletAta, s.authority, tokensOut),
  ];
  const sell = (lamportsOut: bigint): TransactionInstruction[] => [
    createTransferInstruction(s.walletAta, s.tokenVault, s.wallet, s.amountIn),
    SystemProgram.transfer({ fromPubkey: s.authority, toPubkey: s.wallet, lamports: lamportsOut }),
  ];
  const honest = (): TransactionInstruction[] => (s.side === 'buy' ? buy(s.amountOut) : sell(s.amountOut));
  const stranger = (n: number): PublicKey => Keypair.fromSeed(new Uint8Array(32).fill(n)).publicKey;
  const wallet = (instructions: TransactionInstruction[]): { instructions: TransactionInstruction[]; payer: PublicKey } => ({
    instructions: [...budget(s.microLamports), ...instructions],
    payer: s.wallet,
  });
  switch (variant) {
    case 'sellToStranger': {
      // Our tokens go to a stranger's account (opened by the pool authority); we get 1 lamport.
      const theirs = getAssociatedTokenAddressSync(s.mint, s.attacker, true);
      return wallet([
        createAssociatedTokenAccountIdempotentInstruction(s.authority, theirs, s.attacker, s.mint),
        createTransferInstruction(s.walletAta, theirs, s.wallet, s.amountIn),
        SystemProgram.transfer({ fromPubkey: s.authority, toPubkey: s.wallet, lamports: 1n }),
      ]);
    }
    case 'extraSol2m':
      return wallet([...honest(), SystemProgram.transfer({ fromPubkey: s.wallet, toPubkey: s.attacker, lamports: 2_000_000n })]);
    case 'underpay':
      // The full input is taken; 1 raw token (buy) or 1 lamport (sell) comes back.
      return wallet(s.side === 'buy' ? buy(1n) : sell(1n));
    case 'durableNonce':
      return wallet([SystemProgram.nonceAdvance({ noncePubkey: stranger(41), authorizedPubkey: s.wallet }), ...honest()]);
    case 'unknownProgram':
      return wallet([
        ...honest(),
        new TransactionInstruction({ programId: stranger(42), keys: [{ pubkey: s.wallet, isSigner: true, isWritable: true }], data: Buffer.from([1]) }),
      ]);
    case 'foreignPayer':
      return { instructions: [...budget(s.microLamports), ...honest()], payer: s.attacker };
    case 'hugePriorityFee':
      return { instructions: [...budget(s.microLamports * 1_000n + 1_000_000_000n), ...honest()], payer: s.wallet };
    case 'token2022Fee':
      // The mint through Token-2022 TransferCheckedWithFee whose stated fee keeps all but 1 raw token.
      return wallet(buy2022(s, s.amountOut - 1n));
    case 'delegateTakeBack': {
      // The full output into our Token-2022 account, then all of it out again (to the attacker) on
      // the signature of the mint's permanent delegate, the pool authority, who co-signs anyway.
      const ours = getAssociatedTokenAddressSync(s.mint, s.wallet, true, TOKEN_2022_PROGRAM_ID);
      const theirs = getAssociatedTokenAddressSync(s.mint, s.attacker, true, TOKEN_2022_PROGRAM_ID);
      return wallet([...buy2022(s, 0n), createTransferCheckedInstruction(ours, s.mint, theirs, s.authority, s.amountOut, s.decimals, TOKEN_2022_PROGRAM_ID)]);
    }
    case 'lookupTakeBack': {
      // A buy into our (existing) associated account paid in full, then as much out of it to a
      // stranger on the pool authority's signature, as a delegate of ours would; both accounts
      // only through the lookup table, so no static key and no instruction creating it names ours.
      const theirs = getAssociatedTokenAddressSync(s.mint, s.attacker, true);
      return {
        ...wallet([
          SystemProgram.transfer({ fromPubkey: s.wallet, toPubkey: s.authority, lamports: s.amountIn }),
          createTransferInstruction(s.tokenVault, s.walletAta, s.authority, s.amountOut),
          createTransferInstruction(s.walletAta, theirs, s.authority, s.amountOut),
        ]),
        tableAddresses: [s.walletAta, theirs],
      };
    }
    case 'delegateBurn': {
      // The full output into our Token-2022 account, then burned by the permanent delegate (the pool authority).
      const ours = getAssociatedTokenAddressSync(s.mint, s.wallet, true, TOKEN_2022_PROGRAM_ID);
      return wallet([...buy2022(s, 0n), createBurnInstruction(ours, s.mint, s.authority, s.amountOut, TOKEN_2022_PROGRAM_ID)]);
    }
    case 'closeForRent':
      // Our tokens go to the pool, nothing comes back, and our emptied account is closed: its rent
      // (2 039 280 lamports) is the only SOL that reaches the wallet. Lands only when the sell
      // empties the account; on a buy it is the honest swap.
      return wallet(
        s.side === 'sell'
          ? [createTransferInstruction(s.walletAta, s.tokenVault, s.wallet, s.amountIn), createCloseAccountInstruction(s.walletAta, s.wallet, s.wallet)]
          : honest(),
      );
    case 'extraSigners': {
      // The honest swap plus a harmless Memo that 10 strangers sign (and do sign): the transaction
      // lands, and our wallet, the fee payer, pays the base fee of 12 signatures instead of 2.
      const coSigners = Array.from({ length: 10 }, (_, i) => Keypair.fromSeed(new Uint8Array(32).fill(60 + i)));
      const memo = new TransactionInstruction({
        programId: new PublicKey(MEMO_PROGRAM),
        keys: coSigners.map((k) => ({ pubkey: k.publicKey, isSigner: true, isWritable: false })),
        data: Buffer.from('gm', 'utf8'),
      });
      return { ...wallet([...honest(), memo]), coSigners };
    }
    case 'otherMint':
      return wallet(honest()); // the builder already swapped the mint for another tradable one
  }
}

/** A buy paid in the mint through Token-2022 `TransferCheckedWithFee` into our Token-2022 account, stating `feeRaw`. */
function buy2022(s: HonestSwap, feeRaw: bigint): TransactionInstruction[] {
  const ours = getAssociatedTokenAddressSync(s.mint, s.wallet, true, TOKEN_2022_PROGRAM_ID);
  const vault = getAssociatedTokenAddressSync(s.mint, s.authority, true, TOKEN_2022_PROGRAM_ID);
  return [
    createAssociatedTokenAccountIdempotentInstruction(s.wallet, ours, s.wallet, s.mint, TOKEN_2022_PROGRAM_ID),
    SystemProgram.transfer({ fromPubkey: s.wallet, toPubkey: s.authority, lamports: s.amountIn }),
    createTransferCheckedWithFeeInstruction(vault, s.mint, ours, s.authority, s.amountOut, s.decimals, feeRaw),
  ];
}
