import type { PublicKey } from '@solana/web3.js';
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  Keypair,
  MessageV0,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  VersionedMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyText } from '../../src/client/key-text.js';
import { isWritableIndex, parseWireTransaction, type WireTransaction } from '../../src/client/wire-transaction.js';
import { FUZZ_TIMEOUT_MS, fuzzParams } from '../helpers/fuzz.js';

const key = (n: number): PublicKey => Keypair.fromSeed(new Uint8Array(32).fill(n)).publicKey;
const payer = Keypair.fromSeed(new Uint8Array(32).fill(1));
const blockhash = key(99).toBase58();

function parsed(raw: Uint8Array): WireTransaction {
  const r = parseWireTransaction(raw);
  if (!r.ok) throw new Error(r.reason);
  return r.tx;
}

/** What web3.js reads from the same bytes, in the parser's terms. */
function web3View(raw: Uint8Array) {
  const tx = VersionedTransaction.deserialize(raw);
  const m = tx.message;
  const loaded = m.addressTableLookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0);
  return {
    version: m.version,
    signatureCount: tx.signatures.length,
    header: [m.header.numRequiredSignatures, m.header.numReadonlySignedAccounts, m.header.numReadonlyUnsignedAccounts],
    keys: m.staticAccountKeys.map((k) => k.toBase58()),
    blockhash: m.recentBlockhash,
    instructions: m.compiledInstructions.map((ix) => ({ program: ix.programIdIndex, accounts: [...ix.accountKeyIndexes], data: [...ix.data] })),
    lookups: m.addressTableLookups.map((l) => ({ table: l.accountKey.toBase58(), writable: [...l.writableIndexes], readonly: [...l.readonlyIndexes] })),
    writable: Array.from({ length: m.staticAccountKeys.length + loaded }, (_, i) => m.isAccountWritable(i)),
  };
}

function ourView(raw: Uint8Array) {
  const t = parsed(raw);
  const loaded = t.loadedWritableCount + t.loadedReadonlyCount;
  return {
    version: t.version,
    signatureCount: t.signatureCount,
    header: [t.requiredSignatures, t.readonlySigned, t.readonlyUnsigned],
    keys: t.staticKeys.map(keyText),
    blockhash: keyText(t.recentBlockhash),
    instructions: t.instructions.map((ix) => ({ program: ix.programIndex, accounts: [...ix.accountIndexes], data: [...ix.data] })),
    lookups: t.lookups.map((l) => ({ table: keyText(l.table), writable: [...l.writableIndexes], readonly: [...l.readonlyIndexes] })),
    writable: Array.from({ length: t.staticKeys.length + loaded }, (_, i) => isWritableIndex(t, i)),
  };
}

function v0(instructions: TransactionInstruction[], tables: AddressLookupTableAccount[] = []): Uint8Array {
  const message = MessageV0.compile({ payerKey: payer.publicKey, recentBlockhash: blockhash, instructions, addressLookupTableAccounts: tables });
  return new VersionedTransaction(message).serialize();
}

const table = (n: number, addresses: PublicKey[]): AddressLookupTableAccount =>
  new AddressLookupTableAccount({
    key: key(n),
    state: { deactivationSlot: BigInt('18446744073709551615'), lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses },
  });

describe('wire transactions read from the bytes', () => {
  it('reads a v0 swap-like message as web3.js does: keys, header, instructions, writable flags', () => {
    const raw = v0([
      ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 5 }),
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: key(2), lamports: 7 }),
      new TransactionInstruction({
        programId: key(3),
        keys: [
          { pubkey: payer.publicKey, isSigner: true, isWritable: true },
          { pubkey: key(4), isSigner: false, isWritable: true },
          { pubkey: key(5), isSigner: false, isWritable: false },
          { pubkey: key(6), isSigner: true, isWritable: false },
        ],
        data: Buffer.from([1, 2, 3]),
      }),
    ]);
    expect(ourView(raw)).toEqual(web3View(raw));
  });

  it('reads address-table lookups, with loaded writable keys before loaded read-only ones', () => {
    const raw = v0(
      [
        new TransactionInstruction({
          programId: key(3),
          keys: [
            { pubkey: payer.publicKey, isSigner: true, isWritable: true },
            { pubkey: key(10), isSigner: false, isWritable: true },
            { pubkey: key(11), isSigner: false, isWritable: false },
            { pubkey: key(12), isSigner: false, isWritable: true },
          ],
          data: Buffer.from([9]),
        }),
      ],
      [table(20, [key(10), key(11)]), table(21, [key(12)])],
    );
    const view = ourView(raw);
    expect(view.lookups).toHaveLength(2);
    expect(view).toEqual(web3View(raw));
  });

  it('reads a legacy transaction with a co-signature slot', () => {
    const cosigner = Keypair.fromSeed(new Uint8Array(32).fill(7));
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: cosigner.publicKey, toPubkey: payer.publicKey, lamports: 5 }),
    );
    tx.partialSign(cosigner);
    const raw = tx.serialize({ requireAllSignatures: false });
    expect(parsed(raw).version).toBe('legacy');
    expect(ourView(raw)).toEqual(web3View(raw));
  });

  it(
    'matches web3.js on random messages (keys, signers, read-only flags, instruction data)',
    () => {
      fc.assert(
        fc.property(
          fc.array(
            fc.record({
              program: fc.integer({ min: 30, max: 35 }),
              accounts: fc.array(fc.record({ n: fc.integer({ min: 40, max: 60 }), signer: fc.boolean(), writable: fc.boolean() }), { maxLength: 6 }),
              data: fc.uint8Array({ maxLength: 40 }),
            }),
            { minLength: 1, maxLength: 6 },
          ),
          (ixs) => {
            const instructions = ixs.map(
              (ix) =>
                new TransactionInstruction({
                  programId: key(ix.program),
                  keys: ix.accounts.map((a) => ({ pubkey: key(a.n), isSigner: a.signer, isWritable: a.writable })),
                  data: Buffer.from(ix.data),
                }),
            );
            const message = MessageV0.compile({ payerKey: payer.publicKey, recentBlockhash: blockhash, instructions });
            const raw = new VersionedTransaction(message).serialize();
            expect(ourView(raw)).toEqual(web3View(raw));
          },
        ),
        fuzzParams({ numRuns: 200, seed: 1501 }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it.each<[string, (raw: Uint8Array) => Uint8Array, RegExp]>([
    ['trailing bytes', (raw) => Uint8Array.from([...raw, 0]), /1 bytes follow the end of the message/],
    ['a truncated message', (raw) => raw.subarray(0, raw.length - 3), /runs past the end/],
    ['an unsupported version', (raw) => withByte(raw, 65, 0x81), /message version 1 is not supported/],
    ['a program index beyond the keys', (raw) => withProgramIndex(raw, 200), /calls key index 200/],
    ['a length prefix of four bytes', () => Uint8Array.from([0xff, 0xff, 0xff, 0xff]), /compact length longer than 3 bytes/],
    ['text that is no transaction', () => new TextEncoder().encode('hello world, not a tx'), /runs past the end/],
  ])('refuses %s, naming what is wrong', (_what, damage, reason) => {
    const raw = v0([SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: key(2), lamports: 7 })]);
    const r = parseWireTransaction(damage(raw));
    expect(r.ok).toBe(false);
    expect(r.ok || r.reason).toMatch(reason);
  });
});

/** `raw` with byte `at` replaced (offset 65: the version prefix after one signature slot). */
function withByte(raw: Uint8Array, at: number, value: number): Uint8Array {
  const copy = Uint8Array.from(raw);
  copy[at] = value;
  return copy;
}

/** `raw` with its first instruction's program index replaced. */
function withProgramIndex(raw: Uint8Array, index: number): Uint8Array {
  const t = parsed(raw);
  const message = VersionedMessage.deserialize(raw.subarray(t.messageOffset));
  const keysEnd = t.messageOffset + 1 + 3 + 1 + 32 * message.staticAccountKeys.length;
  return withByte(raw, keysEnd + 32 + 1, index); // after the blockhash and the instruction count
}
