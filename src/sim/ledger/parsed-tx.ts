/**
 * Decoding of wire transactions (legacy and v0 without lookup tables) straight from the bytes, and
 * ed25519 signature verification with node:crypto, so the ledger can refuse a bad transaction with
 * the right JSON-RPC error before it reaches the runtime. No web3.js objects: the keys stay views
 * of the wire bytes, and their base58 text comes from a bounded cache (client/key-text.ts).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import { ChainpilotError } from '../../core/errors.js';
import { keyText } from '../../client/key-text.js';

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
  /** The 32-byte account keys, views of `bytes`. */
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

/** A cursor over wire bytes that throws a plain Error naming what ran out. */
function reader(bytes: Uint8Array): {
  u8(what: string): number;
  shortVec(what: string): number;
  take(n: number, what: string): Uint8Array;
  readonly at: number;
} {
  let at = 0;
  const need = (n: number, what: string): void => {
    if (at + n > bytes.length)
      throw new ChainpilotError('LEDGER_MALFORMED_TRANSACTION', `${what}: the bytes end at ${bytes.length}, ${at + n} needed`, { retry: 'not_retryable' });
  };
  return {
    u8(what) {
      need(1, what);
      return bytes[at++]!;
    },
    shortVec(what) {
      let value = 0;
      for (let i = 0; i < 3; i++) {
        need(1, what);
        const b = bytes[at++]!;
        value |= (b & 0x7f) << (7 * i);
        if ((b & 0x80) === 0) return value;
      }
      throw new ChainpilotError('LEDGER_MALFORMED_TRANSACTION', `${what}: compact length longer than 3 bytes`, { retry: 'not_retryable' });
    },
    take(n, what) {
      need(n, what);
      const out = bytes.subarray(at, at + n);
      at += n;
      return out;
    },
    get at() {
      return at;
    },
  };
}

/** Decodes wire bytes; throws LEDGER_UNSUPPORTED_TRANSACTION, or an Error saying where the bytes are malformed. */
export function parseTx(bytes: Uint8Array): ParsedTx {
  const r = reader(bytes);
  const signatureCount = r.shortVec('signature count');
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < signatureCount; i++) signatures.push(r.take(64, `signature ${i}`));
  const messageStart = r.at;
  const prefix = r.u8('message header');
  let version: 'legacy' | 0 = 'legacy';
  let numSigners = prefix;
  if (prefix & 0x80) {
    if ((prefix & 0x7f) !== 0)
      throw new ChainpilotError('LEDGER_MALFORMED_TRANSACTION', `transaction version ${prefix & 0x7f} is not supported`, { retry: 'not_retryable' });
    version = 0;
    numSigners = r.u8('message header');
  }
  const readonlySigned = r.u8('message header');
  const readonlyUnsigned = r.u8('message header');
  const keyCount = r.shortVec('account key count');
  const keys: Uint8Array[] = [];
  for (let i = 0; i < keyCount; i++) keys.push(r.take(32, `account key ${i}`));
  const blockhash = r.take(32, 'recent blockhash');
  const ixCount = r.shortVec('instruction count');
  const instructions: CompiledIx[] = [];
  for (let i = 0; i < ixCount; i++) {
    const programIdIndex = r.u8(`instruction ${i} program`);
    const accounts = [...r.take(r.shortVec(`instruction ${i} accounts`), `instruction ${i} accounts`)];
    const data = r.take(r.shortVec(`instruction ${i} data`), `instruction ${i} data`);
    if (programIdIndex >= keyCount || accounts.some((a) => a >= keyCount))
      throw new ChainpilotError('LEDGER_MALFORMED_TRANSACTION', `instruction ${i} names an account index beyond the ${keyCount} keys`, {
        retry: 'not_retryable',
      });
    instructions.push({ programIdIndex, accountKeyIndexes: accounts, data });
  }
  if (version === 0 && r.shortVec('address table lookups') > 0) {
    throw new ChainpilotError('LEDGER_UNSUPPORTED_TRANSACTION', 'address lookup tables are not supported by the simulator; list every account in the message', {
      retry: 'not_retryable',
    });
  }
  const first = signatures[0];
  const feePayer = keys[0];
  if (!first || !feePayer)
    throw new ChainpilotError('LEDGER_UNSUPPORTED_TRANSACTION', 'transaction has no signature or no fee payer', { retry: 'not_retryable' });
  const keyStrings = keys.map(keyText);
  const writableSigners = numSigners - readonlySigned;
  const writableUnsigned = keyCount - numSigners - readonlyUnsigned;
  return {
    bytes,
    signature: base58.decode(first),
    version,
    keys,
    keyStrings,
    numSigners,
    feePayer: keyStrings[0]!,
    recentBlockhash: keyText(blockhash),
    instructions,
    messageBytes: bytes.subarray(messageStart),
    signatures,
    isWritable: (i) => (i < numSigners ? i < writableSigners : i - numSigners < writableUnsigned),
  };
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** Parsed public keys by address: a DER parse per signature is most of a verification's cost. */
const publicKeys = new Map<string, KeyObject>();
const MAX_PUBLIC_KEYS = 4_096;

function publicKeyOf(address: string, key: Uint8Array): KeyObject {
  let k = publicKeys.get(address);
  if (!k) {
    k = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, key]), format: 'der', type: 'spki' });
    if (publicKeys.size >= MAX_PUBLIC_KEYS) publicKeys.delete(publicKeys.keys().next().value as string);
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
const ownSignatures = new Map<string, { readonly address: string; readonly message: Buffer }>();
const MAX_OWN_SIGNATURES = 4_096;

const idOf = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');

/** Records that `signature` is `address`'s valid signature of `message` (the caller just made it). */
export function rememberOwnSignature(signature: Uint8Array, address: string, message: Uint8Array): void {
  if (ownSignatures.size >= MAX_OWN_SIGNATURES) ownSignatures.delete(ownSignatures.keys().next().value as string);
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
