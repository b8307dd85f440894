/**
 * Base58 text of 32-byte keys and back, cached: the same wallets, pools, vaults, mints and programs
 * recur in every swap, and base58 is a big-number conversion each way. Both caches are bounded
 * (oldest entry out first), so a long run with many wallets keeps flat memory. Shared by the
 * simulator's ledger and the live executor's inspection (both decode wire transactions).
 */
import { base58Bytes, base58Text } from '../core/base58.js';
import { BoundedMap } from '../core/bounded-map.js';
import { ChainpilotError } from '../core/errors.js';

const MAX_KEYS = 65_536;
const texts = new BoundedMap<string, string>(MAX_KEYS);
const bytes = new BoundedMap<string, Uint8Array>(MAX_KEYS);

function remember<V>(map: Map<string, V>, k: string, v: V): V {
  map.set(k, v);
  return v;
}

/** Base58 text of a key (any length; meant for 32-byte keys and hashes). */
export function keyText(key: Uint8Array): string {
  const id = Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
  return texts.get(id) ?? remember(texts, id, base58Text(key));
}

/** Bytes of a base58 32-byte key; throws on text that is not one. The result is shared: never mutate it. */
export function keyBytes(text: string): Uint8Array {
  const known = bytes.get(text);
  if (known) return known;
  const b = Uint8Array.from(base58Bytes(text));
  if (b.length !== 32)
    throw new ChainpilotError('CORE_INVALID_ARGUMENT', `${text} is not a 32-byte base58 key (${b.length} bytes)`, { retry: 'not_retryable' });
  return remember(bytes, text, b);
}
