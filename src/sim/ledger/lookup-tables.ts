/**
 * Address lookup tables on the ledger, in the layout of the AddressLookupTab1e program (56-byte
 * header: u32 type 1, u64 deactivation slot, u64 last-extended slot, u8 its start index, an
 * optional authority and 2 bytes of padding; then the 32-byte addresses). Tables are set as
 * accounts directly, frozen (no authority) and never deactivated; LiteSVM loads a v0
 * transaction's addresses from them as a node does, and JSON-RPC serves them like any account.
 */
import { keyBytes, keyText } from '../../client/key-text.js';
import { ChainpilotError } from '../../core/errors.js';

export const LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111';
const HEADER = 56;
/** A table holds at most 256 addresses (u8 indexes). */
export const MAX_TABLE_ADDRESSES = 256;

/** The account data of a frozen, active table holding `addresses` (base58), all usable at once. */
export function lookupTableData(addresses: readonly string[]): Uint8Array {
  if (addresses.length > MAX_TABLE_ADDRESSES)
    throw new ChainpilotError('CORE_INVALID_ARGUMENT', `addresses: a lookup table holds at most ${MAX_TABLE_ADDRESSES}, got ${addresses.length}`, {
      retry: 'not_retryable',
    });
  const data = Buffer.alloc(HEADER + 32 * addresses.length);
  data.writeUInt32LE(1, 0); // LookupTable
  data.writeBigUInt64LE(2n ** 64n - 1n, 4); // never deactivated
  data.writeBigUInt64LE(0n, 12); // last extended at slot 0: every address is active
  data[20] = Math.min(addresses.length, 255); // start index of that extension: all of them
  data[21] = 0; // no authority: frozen
  addresses.forEach((a, i) => data.set(keyBytes(a), HEADER + 32 * i));
  return data;
}

/** The addresses of a table account (base58), or undefined when the account is not a table. */
export function readLookupTable(account: { readonly owner: string; readonly data: Uint8Array }): string[] | undefined {
  const d = account.data;
  if (account.owner !== LOOKUP_TABLE_PROGRAM || d.length < HEADER || (d.length - HEADER) % 32 !== 0) return undefined;
  if (d[0] !== 1 || d[1] !== 0 || d[2] !== 0 || d[3] !== 0) return undefined;
  const out: string[] = [];
  for (let at = HEADER; at < d.length; at += 32) out.push(keyText(d.subarray(at, at + 32)));
  return out;
}
