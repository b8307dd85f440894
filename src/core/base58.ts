/**
 * Base58 text of bytes and back (Solana addresses, signatures, wire transactions): one codec for
 * every layer, so a module that works with web3.js objects needs no second Solana SDK for it. Not
 * exported from core/index.ts: the strategy API (which imports core) loads no Solana SDK.
 */
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';

const textCodec = getBase58Decoder();
const bytesCodec = getBase58Encoder();

/** The base58 text of `bytes`. */
export function base58Text(bytes: Uint8Array): string {
  return textCodec.decode(bytes);
}

/** The bytes of base58 `text`; throws on a character outside the alphabet. */
export function base58Bytes(text: string): Uint8Array {
  return bytesCodec.encode(text) as Uint8Array;
}
