/**
 * JSON parsing that keeps large integers exact. Lamports and raw amounts can exceed 2^53, which
 * `JSON.parse` would silently round; every integer literal of 16 or more digits outside a string
 * is turned into a string first, and the typed parsers read either form into a bigint.
 */

const LONG_INT = 16;

/** Parses JSON text, quoting integer literals with at least 16 digits so they survive exactly. */
export function parseJsonLossless(text: string): unknown {
  return JSON.parse(quoteLongIntegers(text)) as unknown;
}

/** Rewrites `text` so that long integer literals (outside strings) become JSON strings. */
export function quoteLongIntegers(text: string): string {
  let out = '';
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i += 2;
        else if (d === 34) break;
        else i++;
      }
      i++;
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const start = i;
      i++;
      while (i < n && isNumberChar(text.charCodeAt(i))) i++;
      const token = text.slice(start, i);
      const digits = token.startsWith('-') ? token.length - 1 : token.length;
      if (digits >= LONG_INT && /^-?\d+$/.test(token)) {
        out += text.slice(last, start) + '"' + token + '"';
        last = i;
      }
      continue;
    }
    i++;
  }
  return last === 0 ? text : out + text.slice(last);
}

function isNumberChar(c: number): boolean {
  // digits, '.', 'e', 'E', '+', '-'
  return (c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45;
}

/** Reads an integer that may arrive as a JSON number or (after lossless parsing) a string. */
export function toBigIntExact(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  return undefined;
}
