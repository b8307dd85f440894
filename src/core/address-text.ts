/**
 * Whether a text is a Solana address: base58 for exactly 32 bytes. Dependency-free, so that the
 * executors' admission and the control API's schemas check it without loading a Solana SDK.
 */

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_TEXT = /^[1-9A-HJ-NP-Za-km-z]+$/;

/**
 * Whether `text` is base58 for exactly 32 bytes, as web3.js's `new PublicKey(text)` accepts it:
 * each leading `1` is a zero byte, the rest is the number's big-endian bytes. Written here so that
 * admitting an intent loads no Solana SDK (a backtest or a paper run would load web3.js for it alone).
 */
export function isAddressText(text: unknown): boolean {
  if (typeof text !== 'string' || text.length > 64 || !BASE58_TEXT.test(text)) return false;
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 0x31) zeros++;
  let n = 0n;
  for (let k = zeros; k < text.length; k++) n = n * 58n + BigInt(BASE58.indexOf(text[k]!));
  let bytes = 0;
  for (; n > 0n; n >>= 8n) bytes++;
  return zeros + bytes === 32;
}
