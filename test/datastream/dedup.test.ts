import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDedupWindow } from '../../src/client/datastream/dedup-window.js';
import { liquidityKey, occurrenceKeys, stableStringify, swapKey } from '../../src/client/datastream/event-key.js';
import { liquidityEvent } from './helpers/events.js';

describe('event keys', () => {
  it('differ for distinct liquidity events that share tx, pool and wallet', () => {
    const a = liquidityEvent({ tx: 'T', type: 'remove_liquidity' });
    const b = liquidityEvent({ tx: 'T', type: 'add_liquidity' });
    const c = liquidityEvent({ tx: 'T', type: 'add_liquidity', tokens: [{ address: 'MintA', amount: '2', amountRaw: '2000000', decimals: 6 }] });
    expect(new Set([liquidityKey(a), liquidityKey(b), liquidityKey(c)]).size).toBe(3);
  });

  it('ignore identity, identityStatus, time and slot, which differ between rooms and between live and REST', () => {
    const a = liquidityEvent({ tx: 'T' });
    const enriched = { ...a, identity: { tags: ['kol'] }, identityStatus: 'partial', time: a.time - 700, slot: a.slot + 1 };
    expect(liquidityKey(enriched)).toBe(liquidityKey(a));
    const s = { tx: 'S', type: 'buy', amount: '1', time: 1 };
    expect(swapKey({ ...s, time: 2, identity: null })).toBe(swapKey(s));
    expect(swapKey({ ...s, amount: '2' })).not.toBe(swapKey(s));
  });

  it('number identical rows within one batch so both survive', () => {
    expect(occurrenceKeys(['a', 'b', 'a', 'a'])).toEqual(['a#0', 'b#0', 'a#1', 'a#2']);
  });

  it('stringify objects independently of key order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(fc.integer(), fc.string(), fc.boolean())), (o) => {
        const reversed = Object.fromEntries(Object.entries(o).reverse());
        expect(stableStringify(reversed)).toBe(stableStringify(o));
      }),
    );
  });
});

describe('dedup window', () => {
  it('admits a key once per subscriber and remembers several subscribers', () => {
    const w = createDedupWindow(10);
    expect(w.admit('k', 1)).toBe(true);
    expect(w.admit('k', 1)).toBe(false);
    expect(w.admit('k', 2)).toBe(true);
    expect(w.admit('k', 3)).toBe(true);
    expect(w.admit('k', 2)).toBe(false);
    expect(w.admit('k', 3)).toBe(false);
  });

  it('never holds more than its capacity, evicting the oldest key first', () => {
    const w = createDedupWindow(100);
    for (let i = 0; i < 1_000; i++) w.admit(`k${i}`, 1);
    expect(w.size).toBe(100);
    expect(w.evicted).toBe(900);
    expect(w.admit('k999', 1)).toBe(false);
    expect(w.admit('k0', 1)).toBe(true);
  });
});
