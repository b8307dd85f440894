/**
 * Reads the layout of a Solana wire transaction (legacy or v0) without decoding it into web3.js
 * objects: where the signatures are, where the message starts, and the signer keys. The signer
 * signs these exact message bytes, and inspection decodes the same bytes, so what was inspected is
 * what gets signed.
 */
import { ChainpilotError } from '../../core/errors.js';

/** Offsets of one wire transaction. */
export interface WireLayout {
  /** Number of signature slots (must equal the message's required signatures). */
  readonly signatureCount: number;
  /** Offset of the first 64-byte signature slot. */
  readonly signaturesOffset: number;
  /** Offset of the message (everything the signatures cover). */
  readonly messageOffset: number;
  /** Required signatures declared by the message header. */
  readonly requiredSignatures: number;
  /** Offset of the first static account key (32 bytes each). */
  readonly accountKeysOffset: number;
  readonly accountKeyCount: number;
}

const bad = (why: string): ChainpilotError =>
  new ChainpilotError('EXEC_SIGNER_FAILED', `cannot sign: the swap transaction is malformed (${why})`, { retry: 'not_retryable' });

/** Decodes a compact-u16 at `offset`: [value, bytes used]. */
export function readShortVec(bytes: Uint8Array, offset: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const b = bytes[offset + i];
    if (b === undefined) throw bad('truncated length prefix');
    value |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) return [value, i + 1];
  }
  throw bad('length prefix longer than 3 bytes');
}

/** The layout of `raw`; throws EXEC_SIGNER_FAILED when the bytes are not a transaction. */
export function wireLayout(raw: Uint8Array): WireLayout {
  const [signatureCount, used] = readShortVec(raw, 0);
  const signaturesOffset = used;
  const messageOffset = signaturesOffset + 64 * signatureCount;
  const first = raw[messageOffset];
  if (first === undefined) throw bad('no message after the signatures');
  const versioned = (first & 0x80) !== 0;
  if (versioned && (first & 0x7f) !== 0) throw bad(`unsupported message version ${first & 0x7f}`);
  const headerOffset = messageOffset + (versioned ? 1 : 0);
  const requiredSignatures = raw[headerOffset] ?? 0;
  const [accountKeyCount, keysUsed] = readShortVec(raw, headerOffset + 3);
  const accountKeysOffset = headerOffset + 3 + keysUsed;
  if (accountKeysOffset + 32 * accountKeyCount > raw.length) throw bad('account keys run past the end');
  if (requiredSignatures !== signatureCount || requiredSignatures > accountKeyCount) {
    throw bad(`${signatureCount} signature slot(s) for ${requiredSignatures} required signer(s)`);
  }
  return { signatureCount, signaturesOffset, messageOffset, requiredSignatures, accountKeysOffset, accountKeyCount };
}

/** Index of `publicKey` among the required signers of `raw`, or -1. */
export function signerIndex(raw: Uint8Array, layout: WireLayout, publicKey: Uint8Array): number {
  outer: for (let i = 0; i < layout.requiredSignatures; i++) {
    const at = layout.accountKeysOffset + 32 * i;
    for (let b = 0; b < 32; b++) if (raw[at + b] !== publicKey[b]) continue outer;
    return i;
  }
  return -1;
}
