/**
 * Decoding of wire transactions (legacy and v0 without lookup tables) with @solana/web3.js, and
 * ed25519 signature verification with node:crypto, so the ledger can refuse a bad transaction with
 * the right JSON-RPC error before it reaches the runtime.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { VersionedTransaction, type MessageCompiledInstruction, type PublicKey } from '@solana/web3.js';
import { getBase58Decoder } from '@solana/kit';
import { ChainpilotError } from '../../core/errors.js';

const base58 = getBase58Decoder();

export interface ParsedTx {
  readonly bytes: Uint8Array;
  /** First signature, base58: the transaction id. */
  readonly signature: string;
  readonly version: 'legacy' | 0;
  readonly keys: readonly PublicKey[];
  readonly keyStrings: readonly string[];
  readonly numSigners: number;
  readonly feePayer: string;
  readonly recentBlockhash: string;
  readonly instructions: readonly MessageCompiledInstruction[];
  readonly messageBytes: Uint8Array;
  readonly signatures: readonly Uint8Array[];
  isWritable(index: number): boolean;
}

/** Decodes wire bytes; throws LEDGER_UNSUPPORTED_TRANSACTION (or web3.js's decoding error) saying what is wrong. */
export function parseTx(bytes: Uint8Array): ParsedTx {
  const tx = VersionedTransaction.deserialize(bytes);
  const m = tx.message;
  if (m.addressTableLookups.length > 0) throw new ChainpilotError('LEDGER_UNSUPPORTED_TRANSACTION', 'address lookup tables are not supported by the simulator; list every account in the message', { retry: 'not_retryable' });
  const keys = m.staticAccountKeys;
  const first = tx.signatures[0];
  const feePayer = keys[0];
  if (!first || !feePayer) throw new ChainpilotError('LEDGER_UNSUPPORTED_TRANSACTION', 'transaction has no signature or no fee payer', { retry: 'not_retryable' });
  return {
    bytes,
    signature: base58.decode(first),
    version: m.version,
    keys,
    keyStrings: keys.map((k) => k.toBase58()),
    numSigners: m.header.numRequiredSignatures,
    feePayer: feePayer.toBase58(),
    recentBlockhash: m.recentBlockhash,
    instructions: m.compiledInstructions,
    messageBytes: bytes.subarray(messageOffset(bytes)),
    signatures: tx.signatures,
    isWritable: (i) => m.isAccountWritable(i),
  };
}

/** Offset of the message in wire bytes (after the compact signature count and the signatures). */
function messageOffset(bytes: Uint8Array): number {
  let count = 0;
  let i = 0;
  for (; i < 3; i++) {
    const b = bytes[i] ?? 0;
    count |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) break;
  }
  return i + 1 + 64 * count;
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** Parsed public keys by address: a DER parse per signature is most of a verification's cost. */
const publicKeys = new Map<string, KeyObject>();
const MAX_PUBLIC_KEYS = 4_096;

function publicKeyOf(address: string, key: PublicKey): KeyObject {
  let k = publicKeys.get(address);
  if (!k) {
    k = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, key.toBuffer()]), format: 'der', type: 'spki' });
    if (publicKeys.size >= MAX_PUBLIC_KEYS) publicKeys.delete(publicKeys.keys().next().value as string);
    publicKeys.set(address, k);
  }
  return k;
}

/** True when every required signature is present and valid for its signer. */
export function verifySignatures(tx: ParsedTx): boolean {
  if (tx.signatures.length !== tx.numSigners) return false;
  for (let i = 0; i < tx.numSigners; i++) {
    const sig = tx.signatures[i];
    const key = tx.keys[i];
    const address = tx.keyStrings[i];
    if (!sig || !key || address === undefined) return false;
    if (!verify(null, tx.messageBytes, publicKeyOf(address, key), sig)) return false;
  }
  return true;
}
