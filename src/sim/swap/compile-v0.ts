/**
 * Compiles a v0 transaction message that loads some of its accounts from one address lookup
 * table: the swap service's answer when it returns versioned transactions (honest mode) or hides
 * an account behind a table (the hostile `lookupTakeBack` variant). web3.js compiles it: a table
 * can load only accounts that sign nothing and are no program, the rest stay static.
 */
import { AddressLookupTableAccount, TransactionMessage, type PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { lookupTableData } from '../ledger/lookup-tables.js';

/** The message bytes and its required signers in slot order. */
export function compileV0Message(
  payer: PublicKey,
  blockhash: string,
  instructions: readonly TransactionInstruction[],
  table: { readonly address: PublicKey; readonly addresses: readonly PublicKey[] },
): { message: Buffer; signers: PublicKey[] } {
  const lookup = new AddressLookupTableAccount({
    key: table.address,
    state: AddressLookupTableAccount.deserialize(lookupTableData(table.addresses.map((a) => a.toBase58()))),
  });
  const compiled = new TransactionMessage({ payerKey: payer, recentBlockhash: blockhash, instructions: [...instructions] }).compileToV0Message([lookup]);
  return { message: Buffer.from(compiled.serialize()), signers: compiled.staticAccountKeys.slice(0, compiled.header.numRequiredSignatures) };
}
