import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseJsonLossless, parseRetryAfterMs, quoteLongIntegers, readDataApiError, readPredictionError, toBigIntExact } from '../../src/client/http/index.js';

describe('Retry-After parsing', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it('reads delay-seconds and HTTP dates, clamps past dates to zero and ignores junk', () => {
    expect(parseRetryAfterMs('5', now)).toBe(5000);
    expect(parseRetryAfterMs(['2'], now)).toBe(2000);
    expect(parseRetryAfterMs('Sun, 01 Mar 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Sun, 01 Mar 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('-3', now)).toBeUndefined();
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe('lossless JSON', () => {
  it('keeps integers beyond 2^53 exact and leaves strings and small numbers alone', () => {
    const text = '{"lamports": 123456789012345678901, "s": "99999999999999999999 \\" 1", "x": -9007199254740993, "f": 1.5e3, "n": 42}';
    const v = parseJsonLossless(text) as Record<string, unknown>;
    expect(toBigIntExact(v['lamports'])).toBe(123456789012345678901n);
    expect(toBigIntExact(v['x'])).toBe(-9007199254740993n);
    expect(v['s']).toBe('99999999999999999999 " 1');
    expect(v['f']).toBe(1500);
    expect(v['n']).toBe(42);
  });

  it('round-trips any bigint array exactly', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n })), (xs) => {
        const text = `[${xs.map(String).join(',')}]`;
        const parsed = parseJsonLossless(text) as unknown[];
        expect(parsed.map(toBigIntExact)).toEqual(xs);
      }),
    );
    expect(quoteLongIntegers('{"a":"1234567890123456789"}')).toBe('{"a":"1234567890123456789"}');
  });

  it('never changes strings (digits, quotes, backslashes) or ordinary numbers', () => {
    const digitsy = fc.string({ unit: fc.constantFrom('1', '2', '9', '"', '\\', '.', 'e', '-', 'x', ' ') });
    fc.assert(
      fc.property(fc.array(fc.oneof(digitsy, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }))), (values) => {
        const text = JSON.stringify({ values, tail: '12345678901234567890' });
        expect(parseJsonLossless(text)).toEqual(JSON.parse(text));
      }),
    );
  });
});

describe('error body readers', () => {
  it('read the token data API and prediction API error shapes', () => {
    expect(readDataApiError({ error: { code: 'SERVER_ERROR', message: 'Internal server error' } })).toEqual({
      apiCode: 'SERVER_ERROR',
      apiMessage: 'Internal server error',
    });
    expect(readPredictionError({ code: 404, error: 'market not found', errorCode: 'NOT_FOUND' })).toEqual({
      apiCode: 'NOT_FOUND',
      apiMessage: 'market not found',
      bodyCode: 404,
    });
    expect(readDataApiError('<html>')).toBeUndefined();
  });
});
