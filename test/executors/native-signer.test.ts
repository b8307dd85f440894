import { inspect } from 'node:util';
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { getBase58Decoder } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { keypairSigner } from '../../src/executors/signer/signer.js';

const wallet = Keypair.fromSeed(new Uint8Array(32).fill(7));
const cosigner = Keypair.fromSeed(new Uint8Array(32).fill(9));
const blockhash = new PublicKey(new Uint8Array(32).fill(1)).toBase58();

/** A swap-like legacy transaction: the wallet pays, a pool authority has signed already. */
function legacyFromService(): Uint8Array {
  const tx = new Transaction({ feePayer: wallet.publicKey, blockhash, lastValidBlockHeight: 10 });
  tx.add(SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: cosigner.publicKey, lamports: 5n }));
  tx.add(SystemProgram.transfer({ fromPubkey: cosigner.publicKey, toPubkey: wallet.publicKey, lamports: 3n }));
  tx.partialSign(cosigner);
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false });
}

function v0FromService(): Uint8Array {
  const message = new TransactionMessage({
    payerKey: wallet.publicKey,
    recentBlockhash: blockhash,
    instructions: [SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: cosigner.publicKey, lamports: 5n })],
  }).compileToV0Message();
  return new VersionedTransaction(message).serialize();
}

describe('native signer', () => {
  it('signs a legacy swap byte for byte like web3.js, keeping the co-signer signature', () => {
    const raw = legacyFromService();
    const signed = keypairSigner(wallet).signWire(raw);
    const reference = Transaction.from(raw);
    reference.partialSign(wallet);
    const expected = reference.serialize({ requireAllSignatures: true, verifySignatures: true });
    expect(Buffer.from(signed.raw).equals(expected)).toBe(true);
    expect(signed.signature).toBe(getBase58Decoder().decode(reference.signature!));
    expect(signed.base64).toBe(expected.toString('base64'));
    expect(Transaction.from(signed.raw).verifySignatures()).toBe(true);
    expect(raw.subarray(1, 65).every((b) => b === 0)).toBe(true); // the input is not modified
  });

  it('signs a v0 message byte for byte like web3.js', () => {
    const raw = v0FromService();
    const signed = keypairSigner(wallet).signWire(raw);
    const reference = VersionedTransaction.deserialize(raw);
    reference.sign([wallet]);
    expect(Buffer.from(signed.raw).equals(Buffer.from(reference.serialize()))).toBe(true);
    expect(signed.signature).toBe(getBase58Decoder().decode(reference.signatures[0]!));
  });

  it('refuses bytes where the wallet has no signer slot, and bytes that are not a transaction', () => {
    const other = keypairSigner(Keypair.fromSeed(new Uint8Array(32).fill(5)));
    expect(() => other.signWire(legacyFromService())).toThrow(expect.objectContaining({ code: 'EXEC_SIGNER_FAILED' }));
    expect(() => keypairSigner(wallet).signWire(new Uint8Array([1, 2, 3]))).toThrow(expect.objectContaining({ code: 'EXEC_SIGNER_FAILED' }));
  });

  it('shows nothing secret when inspected', () => {
    const text = `${JSON.stringify(keypairSigner(wallet))} ${inspect(keypairSigner(wallet), { showHidden: true, depth: 10 })}`;
    expect(text).not.toContain(Buffer.from(wallet.secretKey.subarray(0, 32)).toString('hex'));
    expect(text).not.toContain(getBase58Decoder().decode(wallet.secretKey));
  });
});
