import type { PublicKey } from '@solana/web3.js';
import { ComputeBudgetProgram, Keypair, SystemProgram, Transaction, TransactionInstruction, TransactionMessage, VersionedMessage } from '@solana/web3.js';
import { createTransferInstruction } from '../../src/client/spl-token.js';
import { describe, expect, it } from 'vitest';
import { compileLegacyMessage } from '../../src/sim/swap/compile-legacy.js';

const key = (n: number): PublicKey => Keypair.fromSeed(new Uint8Array(32).fill(n)).publicKey;

describe('legacy message compiler of the swap builder', () => {
  it('compiles to a message web3.js decodes into the same instructions, with the same header as compileMessage', () => {
    const payer = key(1);
    const authority = key(2);
    const blockhash = key(3).toBase58();
    const ixs = [
      ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }),
      SystemProgram.transfer({ fromPubkey: payer, toPubkey: authority, lamports: 5n }),
      createTransferInstruction(key(4), key(5), authority, 7n),
      new TransactionInstruction({ programId: key(6), keys: [], data: Buffer.from('memo') }),
    ];
    const { message, signers } = compileLegacyMessage(payer, blockhash, ixs);
    const decoded = VersionedMessage.deserialize(message);
    expect(decoded.version).toBe('legacy');
    const reference = new Transaction({ feePayer: payer, blockhash, lastValidBlockHeight: 1 }).add(...ixs).compileMessage();
    expect(decoded.header).toEqual(reference.header);
    expect(signers.map((s) => s.toBase58())).toEqual([payer.toBase58(), authority.toBase58()]);
    const back = TransactionMessage.decompile(decoded);
    expect(back.payerKey.equals(payer)).toBe(true);
    expect(back.recentBlockhash).toBe(blockhash);
    const shape = (list: readonly TransactionInstruction[]) =>
      list.map((ix) => ({
        program: ix.programId.toBase58(),
        keys: ix.keys.map((k) => `${k.pubkey.toBase58()}:${k.isSigner}:${k.isWritable}`),
        data: Buffer.from(ix.data).toString('hex'),
      }));
    const flags = (list: readonly TransactionInstruction[]) => shape(list).map((i) => ({ ...i, keys: i.keys.map((k) => k.split(':')[0]) }));
    expect(flags(back.instructions)).toEqual(flags(ixs));
    // flags are the union over the message (payer is a writable signer everywhere it appears)
    expect(shape(back.instructions)[1]!.keys).toEqual([`${payer.toBase58()}:true:true`, `${authority.toBase58()}:true:true`]);
  });
});
