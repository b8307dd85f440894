import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, Transaction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { getBase58Decoder } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { fromRaw } from '../../src/core/index.js';
import { keyBytes, keyText } from '../../src/client/key-text.js';
import { decimalText } from '../../src/sim/ledger/ledger-accounts.js';
import { parseTx, rememberOwnSignature, verifySignatures } from '../../src/sim/ledger/parsed-tx.js';

const base58 = getBase58Decoder();
const key = (n: number): Keypair => Keypair.fromSeed(new Uint8Array(32).fill(n));
const payer = key(1);
const cosigner = key(2);
const blockhash = new PublicKey(new Uint8Array(32).fill(9)).toBase58();
const instructions = [
  ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 5 }),
  SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: key(3).publicKey, lamports: 7n }),
  SystemProgram.transfer({ fromPubkey: cosigner.publicKey, toPubkey: payer.publicKey, lamports: 1n }),
];

function legacy(): Transaction {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(...instructions);
  tx.sign(payer, cosigner);
  return tx;
}

function v0(): VersionedTransaction {
  const tx = new VersionedTransaction(new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: blockhash, instructions }).compileToV0Message());
  tx.sign([payer, cosigner]);
  return tx;
}

describe('the ledger decodes wire transactions from the bytes', () => {
  it.each([
    ['legacy', () => legacy().serialize()],
    ['v0', () => Buffer.from(v0().serialize())],
  ] as const)('reads a %s transaction as web3.js does: id, keys, writability, blockhash, instructions and signed bytes', (_name, wire) => {
    const bytes = wire();
    const ours = parseTx(bytes);
    const theirs = VersionedTransaction.deserialize(bytes);
    const m = theirs.message;
    expect(ours.version).toBe(m.version);
    expect(ours.signature).toBe(base58.decode(theirs.signatures[0]!));
    expect(ours.keyStrings).toEqual(m.staticAccountKeys.map((k) => k.toBase58()));
    expect(ours.feePayer).toBe(payer.publicKey.toBase58());
    expect(ours.numSigners).toBe(m.header.numRequiredSignatures);
    expect(ours.keyStrings.map((_, i) => ours.isWritable(i))).toEqual(m.staticAccountKeys.map((_, i) => m.isAccountWritable(i)));
    expect(ours.recentBlockhash).toBe(blockhash);
    expect(ours.instructions.map((ix) => ({ ...ix, data: [...ix.data] }))).toEqual(
      m.compiledInstructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accountKeyIndexes: ix.accountKeyIndexes, data: [...ix.data] })),
    );
    expect(Buffer.from(ours.messageBytes).equals(Buffer.from(m.serialize()))).toBe(true);
    expect(verifySignatures(ours)).toBe(true);
  });

  it('says where truncated bytes end, and refuses an instruction naming a key beyond the keys', () => {
    const bytes = legacy().serialize();
    expect(() => parseTx(bytes.subarray(0, 200))).toThrow(/account key 2 runs past the end of the 200 bytes/);
    expect(() => parseTx(bytes.subarray(0, bytes.length - 1))).toThrow(/instruction 2 data runs past the end/);
    const bad = Buffer.from(bytes);
    // The last instruction (a system transfer) is its program index, 1 + 2 account bytes, 1 + 12 data bytes.
    bad[bytes.length - 17] = 200;
    expect(() => parseTx(bad)).toThrow(/instruction 2 calls key index 200 of \d+/);
    expect(() => parseTx(bad)).toThrow(expect.objectContaining({ code: 'LEDGER_MALFORMED_TRANSACTION' }));
  });

  it('refuses a bad signature even from a signer whose own signatures it remembers, when the bytes or the signer differ', () => {
    const tx = legacy();
    const bytes = tx.serialize();
    const parsed = parseTx(bytes);
    const cosignerSig = parsed.signatures[1]!;
    rememberOwnSignature(cosignerSig, cosigner.publicKey.toBase58(), parsed.messageBytes);
    expect(verifySignatures(parsed)).toBe(true);
    // Same remembered signature over other bytes: verified in full, and it fails.
    const tampered = Buffer.from(bytes);
    tampered.writeUInt8(tampered.readUInt8(tampered.length - 1) ^ 0x01, tampered.length - 1);
    expect(verifySignatures(parseTx(tampered))).toBe(false);
    // A signature remembered for one signer does not vouch for it in another signer's slot.
    const swapped = Buffer.from(bytes);
    Buffer.from(cosignerSig).copy(swapped, 1);
    expect(verifySignatures(parseTx(swapped))).toBe(false);
  });

  it('formats raw token amounts exactly as core fromRaw does', () => {
    const cases: [bigint, number][] = [
      [0n, 6],
      [1n, 6],
      [1_000_000n, 6],
      [123_456_789n, 6],
      [10n ** 18n + 5n, 9],
      [42n, 0],
      [2n ** 64n - 1n, 9],
      [500n, 3],
    ];
    for (const [raw, decimals] of cases) expect(decimalText(raw, decimals)).toBe(fromRaw(raw, decimals));
  });

  it('turns keys into base58 and back, and refuses text that is not a 32-byte key', () => {
    const k = payer.publicKey;
    expect(keyText(k.toBytes())).toBe(k.toBase58());
    expect(Buffer.from(keyBytes(k.toBase58())).equals(k.toBuffer())).toBe(true);
    expect(() => keyBytes('abc')).toThrow(/not a 32-byte base58 key/);
    expect(() => keyBytes('0OIl')).toThrow();
  });
});
