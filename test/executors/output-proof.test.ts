/** Static mode's output proof: what decoded instructions guarantee arrives if the transaction lands. */
import { SystemProgram, type TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import {
  TOKEN_2022_PROGRAM_ID,
  createTransferCheckedInstruction,
  createTransferCheckedWithFeeInstruction,
  createTransferInstruction,
} from '../../src/client/spl-token.js';
import { provenOutput } from '../../src/executors/live/output-proof.js';
import { ata, decoded, mint, other, pool, wallet } from './support/instructions.js';

const prove = (side: 'buy' | 'sell', ixs: TransactionInstruction[]) => provenOutput(decoded(ixs), { side, mint: mint.toBase58() }, wallet.toBase58());

describe('static output proof', () => {
  it('reads a buy from classic token transfers into our account of the mint, naming them', () => {
    expect(
      prove('buy', [
        createTransferInstruction(ata(mint, pool), ata(mint), pool, 500n),
        createTransferCheckedInstruction(ata(mint, pool), mint, ata(mint), pool, 20n, 6),
      ]),
    ).toEqual({ amount: 520n, by: ['#1 Token Transfer', '#2 Token TransferChecked'] });
  });

  it('counts nothing that lands elsewhere, is of another mint, or moves between our own accounts', () => {
    expect(
      prove('buy', [
        createTransferInstruction(ata(mint, pool), ata(mint, other), pool, 500n),
        createTransferCheckedInstruction(ata(other, pool), other, ata(mint), pool, 20n, 6),
        createTransferInstruction(ata(mint), ata(mint), wallet, 7n),
      ]).amount,
    ).toBe(0n);
  });

  it('reads Token-2022 only from TransferCheckedWithFee, net of the fee it states', () => {
    const t22 = TOKEN_2022_PROGRAM_ID;
    expect(prove('buy', [createTransferCheckedWithFeeInstruction(ata(mint, pool, t22), mint, ata(mint, wallet, t22), pool, 1_000n, 6, 990n, t22)])).toEqual({
      amount: 10n,
      by: ['#1 Token-2022 TransferCheckedWithFee'],
    });
    expect(prove('buy', [createTransferCheckedInstruction(ata(mint, pool, t22), mint, ata(mint, wallet, t22), pool, 1_000n, 6, t22)]).amount).toBe(0n);
  });

  it('reads a sell from System transfers into our wallet from another account', () => {
    expect(
      prove('sell', [
        SystemProgram.transfer({ fromPubkey: pool, toPubkey: wallet, lamports: 9_000n }),
        SystemProgram.transfer({ fromPubkey: wallet, toPubkey: wallet, lamports: 5n }),
        SystemProgram.transfer({ fromPubkey: pool, toPubkey: other, lamports: 1n }),
      ]),
    ).toEqual({ amount: 9_000n, by: ['#1 System Transfer'] });
  });
});
