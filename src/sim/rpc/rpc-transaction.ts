/**
 * The `transaction` member of getTransaction in the encodings the simulator serves: `json` (the
 * default of a node and of @solana/web3.js), `base64` and `base58`.
 */
import { VersionedTransaction } from '@solana/web3.js';
import { keyText } from '../../client/key-text.js';
import { parseWireTransaction } from '../../client/wire-transaction.js';
import { base58Text } from '../../core/base58.js';
import { invalidParams } from './rpc-error.js';

/**
 * `meta.loadedAddresses` of a landed transaction: the addresses its v0 lookups loaded, writable
 * then read-only. The ledger's tables are frozen, so reading them now gives what landing loaded.
 */
export function loadedAddressesOf(bytes: Uint8Array, table: (address: string) => readonly string[] | undefined): { writable: string[]; readonly: string[] } {
  const parsed = parseWireTransaction(bytes);
  const out = { writable: [] as string[], readonly: [] as string[] };
  if (!parsed.ok) return out;
  for (const l of parsed.tx.lookups) {
    const addresses = table(keyText(l.table)) ?? [];
    for (const i of l.writableIndexes) out.writable.push(addresses[i] ?? '');
    for (const i of l.readonlyIndexes) out.readonly.push(addresses[i] ?? '');
  }
  return out;
}

/** Encodes wire bytes as getTransaction returns them. */
export function encodeTransaction(bytes: Uint8Array, encoding: unknown): unknown {
  if (encoding === 'base64') return [Buffer.from(bytes).toString('base64'), 'base64'];
  if (encoding === 'base58') return [base58Text(bytes), 'base58'];
  if (encoding !== 'json' && encoding !== undefined) {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- echoes the caller's bad JSON value
    return invalidParams(`encoding ${String(encoding)} is not served by the simulator; use json, base64 or base58`);
  }
  const tx = VersionedTransaction.deserialize(bytes);
  const m = tx.message;
  return {
    signatures: tx.signatures.map((s) => base58Text(s)),
    message: {
      header: m.header,
      accountKeys: m.staticAccountKeys.map((k) => k.toBase58()),
      recentBlockhash: m.recentBlockhash,
      instructions: m.compiledInstructions.map((ix) => ({
        programIdIndex: ix.programIdIndex,
        accounts: ix.accountKeyIndexes,
        data: base58Text(ix.data),
        stackHeight: null,
      })),
      ...(m.version === 0
        ? {
            addressTableLookups: m.addressTableLookups.map((l) => ({
              accountKey: l.accountKey.toBase58(),
              writableIndexes: l.writableIndexes,
              readonlyIndexes: l.readonlyIndexes,
            })),
          }
        : {}),
    },
  };
}
