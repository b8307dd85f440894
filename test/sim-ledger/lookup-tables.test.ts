/**
 * Address lookup tables on the simulator's ledger (issue 38): a table is an account of the
 * lookup-table program served over JSON-RPC like any other, and a v0 transaction loading an
 * account from it lands (LiteSVM loads the addresses as a node does); getTransaction names the
 * lookups and the loaded addresses. A table the ledger does not hold is refused before landing.
 */
import { AddressLookupTableAccount, Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

describe('address lookup tables on the ledger', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ validBlocks: 30 });
  });
  afterAll(() => h.stop());

  const transferVia = (payer: Keypair, to: Keypair, lookup: AddressLookupTableAccount, lamports: number): VersionedTransaction => {
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: h.ledger.latestBlockhash().blockhash,
      instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to.publicKey, lamports })],
    }).compileToV0Message([lookup]);
    const tx = new VersionedTransaction(message);
    tx.sign([payer]);
    return tx;
  };

  it('serves a table over getAccountInfo and lands a v0 transfer to an address only the table holds', async () => {
    const payer = await h.wallet(1);
    const to = Keypair.generate();
    const other = Keypair.generate().publicKey.toBase58();
    const table = h.ledger.lookupTable([other, to.publicKey.toBase58()]);
    expect(h.ledger.lookupTable([other, to.publicKey.toBase58()])).toBe(table); // the same list, the same table

    const lookup = (await h.connection.getAddressLookupTable(new PublicKey(table))).value;
    expect(lookup?.state.addresses.map((a) => a.toBase58())).toEqual([other, to.publicKey.toBase58()]);
    expect(lookup?.isActive()).toBe(true);

    const tx = transferVia(payer, to, lookup!, 5_000_000);
    expect(tx.message.staticAccountKeys.map((k) => k.toBase58())).not.toContain(to.publicKey.toBase58());
    const sig = await h.connection.sendRawTransaction(tx.serialize());
    for (let i = 0; i < 40 && (await h.status(sig))?.confirmationStatus !== 'finalized'; i++) h.slots(1);
    expect((await h.status(sig))?.err).toBeNull();
    expect(h.ledger.balance(to.publicKey.toBase58())).toBe(5_000_000n);

    const landed = await h.connection.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(landed?.transaction.message.addressTableLookups).toMatchObject([{ writableIndexes: [1], readonlyIndexes: [] }]);
    expect(landed?.transaction.message.addressTableLookups[0]?.accountKey.toBase58()).toBe(table);
    expect(landed?.meta?.loadedAddresses?.writable.map((a) => a.toBase58())).toEqual([to.publicKey.toBase58()]);
    expect(landed?.meta?.postBalances[2]).toBe(5_000_000); // static keys first, then the loaded one
  });

  it('refuses a v0 transaction naming a table the ledger does not hold', async () => {
    const payer = await h.wallet(1);
    const to = Keypair.generate();
    const real = (await h.connection.getAddressLookupTable(new PublicKey(h.ledger.lookupTable([to.publicKey.toBase58()])))).value!;
    // The same table contents under an address the ledger never created.
    const fake = new AddressLookupTableAccount({ key: Keypair.generate().publicKey, state: real.state });
    await expect(h.connection.sendRawTransaction(transferVia(payer, to, fake, 1_000_000).serialize())).rejects.toThrow(
      /address lookup table \w+ does not exist on the ledger/,
    );
    expect(h.ledger.balance(to.publicKey.toBase58())).toBe(0n);
  });
});
