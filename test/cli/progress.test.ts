/** The progress line's rate: grouped as en-US writes it, without Intl. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatRate } from '../../src/cli/progress.js';

describe('formatRate', () => {
  it('writes whole rates from 10 up with thousands separators exactly as toLocaleString("en-US") does', () => {
    fc.assert(
      fc.property(fc.double({ min: 10, max: 1e15, noNaN: true }), (r) => {
        expect(formatRate(r)).toBe(Math.round(r).toLocaleString('en-US'));
      }),
      { numRuns: 2000 },
    );
    expect(formatRate(17_821.4)).toBe('17,821');
    expect(formatRate(999.5)).toBe('1,000');
    expect(formatRate(4.54)).toBe('4.5');
    expect(formatRate(0.514)).toBe('0.51');
    expect(formatRate(0)).toBe('0');
    expect(formatRate(Number.NaN)).toBe('0');
  });
});
