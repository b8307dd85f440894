/** Parsing of the HTTP `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an HTTP date. */

/**
 * Returns the delay the server asked for, in milliseconds from `nowMs`, or `undefined` when the
 * header is absent or unparseable. A date in the past gives 0.
 */
export function parseRetryAfterMs(value: string | readonly string[] | undefined, nowMs: number): number | undefined {
  const raw: unknown = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only accept real HTTP dates (they contain a weekday or month name and "GMT"), not any number.
  if (!/GMT$/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
