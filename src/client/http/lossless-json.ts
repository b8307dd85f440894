/**
 * JSON parsing that keeps large integers exact. Lamports and raw amounts can exceed 2^53, which
 * `JSON.parse` would silently round; every integer literal of 16 or more digits outside a string
 * is turned into a string first, and the typed parsers read either form into a bigint.
 */

/** Parses JSON text, quoting integer literals with at least 16 digits so they survive exactly. */
export function parseJsonLossless(text: string): unknown {
  return JSON.parse(quoteLongIntegers(text)) as unknown;
}

/**
 * Strings are matched whole (so digits inside them are skipped); a bare integer of 16+ digits not
 * part of a fraction or exponent is quoted.
 */
const STRING_OR_LONG_INT = /"[^"\\]*(?:\\.[^"\\]*)*"|(?<![\d.eE+-])-?\d{16,}(?![\d.eE])/g;

/** Rewrites `text` so that long integer literals (outside strings) become JSON strings. */
export function quoteLongIntegers(text: string): string {
  // Fast path: no run of 16 digits anywhere, nothing to quote.
  if (!/\d{16}/.test(text)) return text;
  return text.replace(STRING_OR_LONG_INT, (m) => (m.charCodeAt(0) === 34 ? m : `"${m}"`));
}

/** Reads an integer that may arrive as a JSON number or (after lossless parsing) a string. */
export function toBigIntExact(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  return undefined;
}
