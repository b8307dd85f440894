import { describe, expect, it } from 'vitest';
import { decodeSwapMemo, encodeSwapMemo } from '../../src/sim/ledger/swap-memo.js';

describe('swap memo', () => {
  const terms = { mint: 'Mint1111', poolId: 'curve-1', side: 'sell' as const, amountIn: 123n, amountOut: 18_446_744_073_709_551_615n, minOut: 0n };

  it('round-trips swap terms exactly, u64 amounts included', () => {
    expect(decodeSwapMemo(encodeSwapMemo(terms))).toEqual(terms);
  });

  it('ignores other memos, other versions, bad sides and non-integer amounts', () => {
    expect(decodeSwapMemo('hello')).toBeUndefined();
    expect(decodeSwapMemo(encodeSwapMemo(terms).replace(':v1', ':v2'))).toBeUndefined();
    expect(decodeSwapMemo(encodeSwapMemo(terms).replace(' sell ', ' hold '))).toBeUndefined();
    expect(decodeSwapMemo(encodeSwapMemo(terms).replace(' 123 ', ' 1.5 '))).toBeUndefined();
  });
});
