import { ComputeBudgetProgram, PublicKey, SystemProgram, type TransactionInstruction } from '@solana/web3.js';
import {
  TOKEN_2022_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createBurnInstruction,
  createCloseAccountInstruction,
  createSyncNativeInstruction,
  createTransferCheckedInstruction,
  createTransferInstruction,
} from '../../src/client/spl-token.js';
import { describe, expect, it } from 'vitest';
import type { Lamports, RawAmount } from '../../src/core/units.js';
import { checkInstructions } from '../../src/executors/live/instruction-checks.js';
import { swapAccountsOf } from '../../src/executors/live/swap-accounts.js';
import { WSOL_MINT } from '../../src/executors/live/ports.js';
import { ata, decoded, key, mint, other, pool, wallet } from './support/instructions.js';

const attacker = key(5);
const RENT = 2_039_280n;
const check = (side: 'buy' | 'sell', amountIn: bigint, ixs: TransactionInstruction[]) =>
  checkInstructions(
    decoded(ixs),
    side === 'buy' ? { side, spendLamports: amountIn as Lamports, mint: mint.toBase58() } : { side, sellRaw: amountIn as RawAmount, mint: mint.toBase58() },
    swapAccountsOf({ side, mint: mint.toBase58() }, wallet.toBase58()),
  );

describe('instruction checks', () => {
  it('pass an honest buy and an honest sell, counting what leaves the wallet', () => {
    const buy = check('buy', 1_000n, [
      ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1 }),
      createAssociatedTokenAccountIdempotentInstruction(wallet, ata(mint), wallet, mint),
      SystemProgram.transfer({ fromPubkey: wallet, toPubkey: pool, lamports: 1_000n }),
      createTransferInstruction(ata(mint, pool), ata(mint), pool, 5n),
    ]);
    expect(buy).toEqual({ ok: true, solOutLamports: 1_000n, inputOutRaw: 0n });
    const sell = check('sell', 700n, [
      createTransferCheckedInstruction(ata(mint), mint, ata(mint, pool), wallet, 700n, 6),
      SystemProgram.transfer({ fromPubkey: pool, toPubkey: wallet, lamports: 9n }),
    ]);
    expect(sell).toEqual({ ok: true, solOutLamports: 0n, inputOutRaw: 700n });
  });

  it('pass a wrapped-SOL buy that wraps, syncs and closes its input account back to the wallet', () => {
    const wsol = ata(new PublicKey(WSOL_MINT));
    const r = check('buy', 1_000n, [
      SystemProgram.transfer({ fromPubkey: wallet, toPubkey: wsol, lamports: 1_000n }),
      createSyncNativeInstruction(wsol),
      createTransferInstruction(wsol, ata(new PublicKey(WSOL_MINT), pool), wallet, 1_000n),
      createCloseAccountInstruction(wsol, wallet, wallet),
    ]);
    expect(r.ok).toBe(true);
  });

  it.each<[string, 'buy' | 'sell', TransactionInstruction[], RegExp]>([
    [
      'selling more than the intent',
      'sell',
      [createTransferInstruction(ata(mint), ata(mint, pool), wallet, 701n)],
      /#1 \(Token Transfer\) moves 701 raw tokens out of our input account .*beyond the intent's 700/,
    ],
    [
      'moving the output tokens out on a buy',
      'buy',
      [createTransferInstruction(ata(mint), attacker, wallet, 1n)],
      /#1 \(Token Transfer\) .*not the intended input/,
    ],
    [
      "a transfer out of our account on a stranger's signature",
      'sell',
      [createTransferInstruction(ata(mint), attacker, attacker, 1n)],
      /#1 \(Token Transfer\) .*on the signature of/,
    ],
    [
      'closing our input with the rent sent away',
      'sell',
      [createCloseAccountInstruction(ata(mint), attacker, wallet)],
      /#1 \(Token CloseAccount\) .*sends its lamports to/,
    ],
    [
      'closing the account a buy delivers to',
      'buy',
      [createCloseAccountInstruction(ata(mint), wallet, wallet)],
      /#1 \(Token CloseAccount\) closes our token account .*neither the intended input nor the output/,
    ],
    ['burning our tokens', 'sell', [createBurnInstruction(ata(mint), mint, wallet, 1n)], /#1 \(Token Burn\) moves, burns/],
    [
      "paying rent for a stranger's token account",
      'buy',
      [createAssociatedTokenAccountIdempotentInstruction(wallet, ata(mint, attacker), attacker, mint)],
      /#1 \(AssociatedToken CreateIdempotent\) pays rent from our wallet/,
    ],
    ['re-assigning our wallet', 'buy', [SystemProgram.assign({ accountPubkey: wallet, programId: attacker })], /#1 \(System Assign\) would move, re-assign/],
    [
      'a 2,000,000-lamport transfer to a stranger on a sell (no rent slack: nothing is created)',
      'sell',
      [SystemProgram.transfer({ fromPubkey: wallet, toPubkey: attacker, lamports: 2_000_000n })],
      /#1 \(System Transfer\) moves 2000000 lamports from our wallet .*beyond the intended input \(0;/,
    ],
    [
      'a 2,000,000-lamport transfer to a stranger on a buy, beyond the intended input',
      'buy',
      [
        SystemProgram.transfer({ fromPubkey: wallet, toPubkey: pool, lamports: 1_000n }),
        SystemProgram.transfer({ fromPubkey: wallet, toPubkey: attacker, lamports: 2_000_000n }),
      ],
      /#2 \(System Transfer\) moves 2000000 lamports .*would reach 2001000, beyond the intended input \(1000;/,
    ],
    [
      'a durable-nonce transaction (AdvanceNonceAccount first)',
      'buy',
      [SystemProgram.nonceAdvance({ noncePubkey: other, authorizedPubkey: wallet })],
      /#1 \(System AdvanceNonceAccount\) advances a durable nonce: the transaction would never expire/,
    ],
    [
      'paying rent for our token account of another mint',
      'buy',
      [createAssociatedTokenAccountIdempotentInstruction(wallet, ata(other), wallet, other)],
      /#1 \(AssociatedToken CreateIdempotent\) pays rent from our wallet for a token account of mint \w+, which is neither the intent's mint/,
    ],
    [
      'funding a stranger beyond the rent budget on a sell',
      'sell',
      [SystemProgram.createAccount({ fromPubkey: wallet, newAccountPubkey: attacker, lamports: Number(RENT) + 1, space: 0, programId: attacker })],
      /#1 \(System CreateAccount\) funds a new account/,
    ],
    [
      'a second unit price',
      'buy',
      [ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 2 })],
      /#2 \(ComputeBudget SetComputeUnitPrice\) repeats/,
    ],
    [
      'a Token-2022 transfer out of another account of ours',
      'buy',
      [createTransferCheckedInstruction(ata(other, wallet, TOKEN_2022_PROGRAM_ID), other, attacker, wallet, 1n, 6, TOKEN_2022_PROGRAM_ID)],
      /#1 \(Token-2022 TransferChecked\) .*not the intended input/,
    ],
  ])('refuse %s, naming the instruction', (_what, side, ixs, reason) => {
    const r = check(side, side === 'sell' ? 700n : 1_000n, ixs);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe('LIVE_INSPECTION_INSTRUCTION');
    expect(r.reason).toMatch(reason);
  });
});
