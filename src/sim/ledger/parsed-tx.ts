/**
 * Decoding of wire transactions (legacy and v0, its lookup tables resolved from the ledger's
 * accounts) straight from the bytes (the
 * client's wire parser), and ed25519 signature verification with node:crypto, so the ledger can
 * refuse a bad transaction with the right JSON-RPC error before it reaches the runtime. No web3.js
 * objects: the keys stay views of the wire bytes, and their base58 text comes from a bounded cache
 * (client/key-text.ts).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import { BoundedMap } from '../../core/bounded-map.js';
import { ChainpilotError } from '../../core/errors.js';
import { keyBytes, keyText } from '../../client/key-text.js';
import { isWritableIndex, parseWireTransaction, type WireTransaction } from '../../client/wire-transaction.js';

const base58 = getBase58Decoder();

/** A compiled instruction as the message carries it. */
export interface CompiledIx {
  readonly programIdIndex: number;
  readonly accountKeyIndexes: readonly number[];
  readonly data: Uint8Array;
}

export interface ParsedTx {
  readonly bytes: Uint8Array;
  /** First signature, base58: the transaction id. */
  readonly signature: string;
  readonly version: 'legacy' | 0;
  /** The 32-byte account keys: static keys (views of `bytes`), then those loaded from lookup tables (writable, then read-only). */
  readonly keys: readonly Uint8Array[];
  readonly keyStrings: readonly string[];
  readonly numSigners: number;
  readonly feePayer: string;
  readonly recentBlockhash: string;
  readonly instructions: readonly CompiledIx[];
  readonly messageBytes: Uint8Array;
  readonly signatures: readonly Uint8Array[];
  isWritable(index: number): boolean;
}

/** The addresses of the lookup table at an address, or undefined when there is none. */
export type TableReader = (address: string) => readonly string[] | undefined;

/**
 * Decodes wire bytes with the client's wire parser (one reading of the format for the whole
 * project); throws LEDGER_MALFORMED_TRANSACTION with the parser's reason, or
 * LEDGER_UNSUPPORTED_TRANSACTION for a transaction without a signature, or one whose lookup table
 * `tables` does not know or whose index runs past the table's end (a node's AddressLookupTableNotFound
 * and InvalidAddressLookupTableIndex).
 */
export function parseTx(bytes: Uint8Array, tables: TableReader = () => undefined): ParsedTx {
  const parsed = parseWireTransaction(bytes);
  if (!parsed.ok) throw new ChainpilotError('LEDGER_MALFORMED_TRANSACTION', parsed.reason, { retry: 'not_retryable' });
  const w = parsed.tx;
  const keys = w.lookups.length === 0 ? w.staticKeys : [...w.staticKeys, ...loadedKeys(w, tables)];
  if (w.signatureCount === 0 || keys.length === 0)
    throw new ChainpilotError('LEDGER_UNSUPPORTED_TRANSACTION', 'transaction has no signature or no fee payer', { retry: 'not_retryable' });
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < w.signatureCount; i++) signatures.push(bytes.subarray(w.signaturesOffset + 64 * i, w.signaturesOffset + 64 * (i + 1)));
  const keyStrings = keys.map(keyText);
  return {
    bytes,
    signature: base58.decode(signatures[0]!),
    version: w.version,
    keys,
    keyStrings,
    numSigners: w.requiredSignatures,
    feePayer: keyStrings[0]!,
    recentBlockhash: keyText(w.recentBlockhash),
    instructions: w.instructions.map((ix) => ({ programIdIndex: ix.programIndex, accountKeyIndexes: [...ix.accountIndexes], data: ix.data })),
    messageBytes: bytes.subarray(w.messageOffset),
    signatures,
    isWritable: (i) => isWritableIndex(w, i),
  };
}

/** The keys a v0 message loads from its tables: every writable one, then every read-only one. */
function loadedKeys(w: WireTransaction, tables: TableReader): Uint8Array[] {
  const writable: Uint8Array[] = [];
  const readonly: Uint8Array[] = [];
  for (const l of w.lookups) {
    const table = keyText(l.table);
    const addresses = tables(table);
    if (!addresses) {
      throw new ChainpilotError('LEDGER_UNSUPPORTED_TRANSACTION', `address lookup table ${table} does not exist on the ledger (AddressLookupTableNotFound)`, {
        retry: 'not_retryable',
      });
    }
    const at = (i: number): Uint8Array => {
      const a = addresses[i];
      if (a === undefined) {
        throw new ChainpilotError(
          'LEDGER_UNSUPPORTED_TRANSACTION',
          `index ${i} is past the end of address lookup table ${table}, which holds ${addresses.length} (InvalidAddressLookupTableIndex)`,
          { retry: 'not_retryable' },
        );
      }
      return keyBytes(a);
    };
    for (const i of l.writableIndexes) writable.push(at(i));
    for (const i of l.readonlyIndexes) readonly.push(at(i));
  }
  return [...writable, ...readonly];
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** Parsed public keys by address: a DER parse per signature is most of a verification's cost. */
const MAX_PUBLIC_KEYS = 4_096;
const publicKeys = new BoundedMap<string, KeyObject>(MAX_PUBLIC_KEYS);

function publicKeyOf(address: string, key: Uint8Array): KeyObject {
  let k = publicKeys.get(address);
  if (!k) {
    k = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, key]), format: 'der', type: 'spki' });
    publicKeys.set(address, k);
  }
  return k;
}

/**
 * Signatures this process made itself (the swap service's pool authorities), with the signer and
 * the exact message: verifying one of them again over the same bytes can only succeed, and an
 * ed25519 verification costs about three signings. Bounded, oldest out first; a signature not
 * found here, or found with other bytes or another signer, is verified in full.
 */
const MAX_OWN_SIGNATURES = 4_096;
const ownSignatures = new BoundedMap<string, { readonly address: string; readonly message: Buffer }>(MAX_OWN_SIGNATURES);

const idOf = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');

/** Records that `signature` is `address`'s valid signature of `message` (the caller just made it). */
export function rememberOwnSignature(signature: Uint8Array, address: string, message: Uint8Array): void {
  ownSignatures.set(idOf(signature), { address, message: Buffer.from(message) });
}

function knownValid(signature: Uint8Array, address: string, message: Uint8Array): boolean {
  const own = ownSignatures.get(idOf(signature));
  return own !== undefined && own.address === address && own.message.equals(message);
}

/** True when every required signature is present and valid for its signer. */
export function verifySignatures(tx: ParsedTx): boolean {
  if (tx.signatures.length !== tx.numSigners) return false;
  for (let i = 0; i < tx.numSigners; i++) {
    const sig = tx.signatures[i];
    const key = tx.keys[i];
    const address = tx.keyStrings[i];
    if (!sig || !key || address === undefined) return false;
    if (knownValid(sig, address, tx.messageBytes)) continue;
    if (!verify(null, tx.messageBytes, publicKeyOf(address, key), sig)) return false;
  }
  return true;
}
