/**
 * Decoding of wire transactions (legacy and v0 without lookup tables) with @solana/web3.js, and
 * ed25519 signature verification with node:crypto, so the ledger can refuse a bad transaction with
 * the right JSON-RPC error before it reaches the runtime.
 */
import { createPublicKey, verify } from 'node:crypto';
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
    messageBytes: m.serialize(),
    signatures: tx.signatures,
    isWritable: (i) => m.isAccountWritable(i),
  };
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** True when every required signature is present and valid for its signer. */
export function verifySignatures(tx: ParsedTx): boolean {
  if (tx.signatures.length !== tx.numSigners) return false;
  for (let i = 0; i < tx.numSigners; i++) {
    const sig = tx.signatures[i];
    const key = tx.keys[i];
    if (!sig || !key) return false;
    const publicKey = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, key.toBuffer()]), format: 'der', type: 'spki' });
    if (!verify(null, tx.messageBytes, publicKey, sig)) return false;
  }
  return true;
}
