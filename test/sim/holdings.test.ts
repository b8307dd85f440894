/** Holdings bookkeeping: the top-holders sum the top10 room reports, without sorting every holder. */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/index.js';
import { holdersByBalance, topBalancesSum } from '../../src/sim/model/holdings.js';
import type { TokenState } from '../../src/sim/model/model-types.js';

const token = (balances: readonly bigint[]): TokenState => ({ balances: new Map(balances.map((b, i) => [`w${i}`, b])) }) as unknown as TokenState;

describe('topBalancesSum', () => {
  it('equals the sum of the first n holders by balance, ties and short lists included', () => {
    const r = seededRandom(5);
    for (let round = 0; round < 300; round++) {
      const count = r.int(0, 40);
      // Few distinct values, so ties are common.
      const balances = Array.from({ length: count }, () => BigInt(r.int(1, 12)) * 1_000_000n);
      const t = token(balances);
      for (const n of [1, 3, 10]) {
        const expected = holdersByBalance(t)
          .slice(0, n)
          .reduce((a, [, b]) => a + b, 0n);
        expect(topBalancesSum(t, n), `round ${round}, ${count} holders, top ${n}`).toBe(expected);
      }
    }
  });
});
