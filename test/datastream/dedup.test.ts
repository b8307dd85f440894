import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDedupWindow, MAX_INTERNED } from '../../src/client/datastream/dedup/dedup-window.js';
import { rowFingerprints } from '../../src/client/datastream/dedup/event-key.js';
import { fingerprintOf, parseRows, resolveRoom } from '../../src/client/datastream/rooms/room-registry.js';
import { liquidityEvent } from './helpers/events.js';

const fp = (kind: 'liquidity' | 'swap', rows: unknown[]): string[] => {
  const r = resolveRoom(kind === 'liquidity' ? 'liquidity:M' : 'transaction:M');
  const parsed = parseRows(r, rows);
  if (parsed.rejected > 0) throw new Error(parsed.firstReason);
  const f = rowFingerprints(r, parsed.items);
  return f.keys.map((k, i) => `${k}/${f.checks[i]!}`);
};
const objectFp = (room: string, data: unknown): [number, number] => {
  const r = resolveRoom(room);
  const v = r.family.parse(data, r.name);
  if (typeof v === 'string') throw new Error(v);
  return fingerprintOf(r, v);
};

/** The window as a plain list: the oldest entry first, each with the subscribers it reached. */
function referenceWindow(capacity: number): { admit(key: number, check: number, sub: number): boolean; size(): number } {
  const ring: { key: number; check: number; subs: Set<number> }[] = [];
  return {
    admit(key, check, sub) {
      const hit = ring.find((e) => e.key === key && e.check === check);
      if (hit) {
        const fresh = !hit.subs.has(sub);
        hit.subs.add(sub);
        return fresh;
      }
      ring.push({ key, check, subs: new Set([sub]) });
      if (ring.length > capacity) ring.shift();
      return true;
    },
    size: () => ring.length,
  };
}

describe('event fingerprints', () => {
  it('differ for distinct liquidity events that share tx, pool and wallet', () => {
    const a = liquidityEvent({ tx: 'T', type: 'remove_liquidity' });
    const b = liquidityEvent({ tx: 'T', type: 'add_liquidity' });
    const c = liquidityEvent({ tx: 'T', type: 'add_liquidity', tokens: [{ address: 'MintA', amount: '2', amountRaw: '2000000', decimals: 6 }] });
    const d = liquidityEvent({ tx: 'T', type: 'add_liquidity', tokens: [{ address: 'MintB', amount: '2', amountRaw: '2000000', decimals: 6 }] });
    const e = liquidityEvent({ tx: 'T', type: 'add_liquidity', wallet: 'OtherWallet' });
    expect(new Set(fp('liquidity', [a, b, c, d, e])).size).toBe(5);
  });

  it('ignore identity, identityStatus, time and slot, which differ between rooms and between live and REST', () => {
    const a = liquidityEvent({ tx: 'T' });
    const enriched = { ...a, identity: { tags: ['kol'] }, identityStatus: 'partial', time: a.time - 700, slot: a.slot + 1 };
    expect(fp('liquidity', [enriched])).toEqual(fp('liquidity', [a]));
    const s = { tx: 'S', type: 'buy', amount: '1', wallet: 'W', priceUsd: 0.1, time: 1 };
    // REST may attach metadata (showMeta) or compute prices differently: same swap
    expect(fp('swap', [{ ...s, time: 2, identity: null, priceUsd: 0.1000001, token: { name: 'A' } }])).toEqual(fp('swap', [s]));
    expect(fp('swap', [{ ...s, amount: '2' }])).not.toEqual(fp('swap', [s]));
    expect(fp('swap', [{ ...s, type: 'sell' }])).not.toEqual(fp('swap', [s]));
    expect(fp('swap', [{ ...s, wallet: 'W2' }])).not.toEqual(fp('swap', [s]));
    // without a signature, the time stands in for it
    const { tx: _tx, ...unsigned } = s;
    expect(fp('swap', [{ ...unsigned, time: 2 }])).not.toEqual(fp('swap', [unsigned]));
    // the amount as a number (stream) and as a decimal string (REST) is the same swap
    expect(fp('swap', [{ ...s, amount: 1 }])).toEqual(fp('swap', [s]));
  });

  it('number identical rows within one batch, so both survive and another room maps to the same pair', () => {
    const twin = liquidityEvent({ tx: 'twin' });
    const other = liquidityEvent();
    const first = fp('liquidity', [twin, other, twin]);
    expect(new Set(first).size).toBe(3);
    expect(fp('liquidity', [twin, other, twin])).toEqual(first);
  });

  it("identify object payloads by their family's identity fields within the room's scope, never by the whole payload", () => {
    const insider = { wallet: 'W', totalInsiderPercentage: 12, timestamp: 5 };
    expect(objectFp('insider:M', { ...insider, note: 'extra fields do not matter', nested: { deep: [1, 2] } })).toEqual(objectFp('insider:M', insider));
    expect(objectFp('insider:M', { ...insider, totalInsiderPercentage: 13 })).not.toEqual(objectFp('insider:M', insider));
    expect(objectFp('sniper:M', { ...insider, totalSniperPercentage: 12 })).not.toEqual(objectFp('insider:M', insider));
    // pnl:{w}:{t} and pnl:{w} carry the same trade update: one scope
    const update = { type: 'tradeUpdate', tx: 'T1', token: 'M', timestamp: 9 };
    expect(objectFp('pnl:W:M', update)).toEqual(objectFp('pnl:W', { ...update, position: { extra: 1 } }));
    const dca = { eventName: 'filled', signature: 'S', order: { address: 'O', inputMint: 'SOL' } };
    expect(objectFp('dca:p:filled', dca)).toEqual(objectFp('dca:p', dca));
    expect(objectFp('dca:p', { ...dca, signature: 'S2' })).not.toEqual(objectFp('dca:p', dca));
  });

  it('fingerprint a payload nested deeper than the stack allows without recursing', () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    expect(() => objectFp('dca:p', { eventName: 'opened', signature: 'S', extra: deep })).not.toThrow();
  });

  it('do not collide over 200,000 distinct events, with short ids read whole and real-length signatures read by their tail', () => {
    const signature = '5h3kVq9xTt1YwJzQ8uNfRz2cLmPbD7sAeKgHjXo4WnCvUiEy6MrBa5h3kVq9xTt1YwJzQ8uNfRz2cLmPbD7';
    for (const tx of [(i: number) => `sig${i}`, (i: number) => `${signature}${i}`.slice(-87)]) {
      const seen = new Set<string>();
      for (let i = 0; i < 200_000; i++) {
        const [k] = fp('liquidity', [liquidityEvent({ tx: tx(i), tokens: [{ address: 'M', amount: '1', amountRaw: String(i % 7), decimals: 0 }] })]);
        seen.add(k!);
      }
      expect(seen.size).toBe(200_000);
    }
  });
});

describe('dedup window', () => {
  it('admits an event once per subscriber and remembers several subscribers', () => {
    const w = createDedupWindow(10);
    expect(w.admit(1, 7, 1)).toBe(true);
    expect(w.admit(1, 7, 1)).toBe(false);
    expect(w.admit(1, 7, 2)).toBe(true);
    expect(w.admit(1, 7, 3)).toBe(true);
    expect(w.admit(1, 7, 2)).toBe(false);
    expect(w.admit(1, 7, 3)).toBe(false);
    // same key, different check: another event
    expect(w.admit(1, 8, 1)).toBe(true);
  });

  it('never holds more than its capacity, evicting the oldest entry first', () => {
    const w = createDedupWindow(100);
    for (let i = 0; i < 1_000; i++) w.admit(i, 0, 1);
    expect(w.size).toBe(100);
    expect(w.evicted).toBe(900);
    expect(w.admit(999, 0, 1)).toBe(false);
    expect(w.admit(900, 0, 1)).toBe(false);
    expect(w.admit(0, 0, 1)).toBe(true);
  });

  it('keeps the subscribers an entry reached when its next one starts a fresh chain of shared sets', () => {
    const w = createDedupWindow(2 * MAX_INTERNED);
    for (const sub of [1, 2, 3]) expect(w.admit(0, 0, sub)).toBe(true); // two shared sets: {2}, {2, 3}
    // each other entry reaches subscriber 1, then one of its own: one new set each, up to the bound
    for (let k = 1; k <= MAX_INTERNED - 2; k++) {
      w.admit(k, 0, 1);
      w.admit(k, 0, 1_000 + k);
    }
    expect(w.admit(0, 0, 4)).toBe(true); // the set past the bound: a fresh chain starts here
    for (const sub of [1, 2, 3, 4]) expect(w.admit(0, 0, sub)).toBe(false);
    expect(w.admit(0, 0, 5)).toBe(true);
    expect(w.admit(1, 0, 1_001)).toBe(false);
  });

  it('agrees with a reference model with many subscribers in varying orders, past the bound on shared subscriber sets', () => {
    const capacity = 64;
    const w = createDedupWindow(capacity);
    const model = referenceWindow(capacity);
    let seed = 7;
    const next = (n: number): number => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return Math.floor((seed / 2 ** 32) * n); // the high bits: an LCG's low bits cycle fast
    };
    // 60 subscribers in random orders on 100 keys (most stay in the window a while) make far more than MAX_INTERNED distinct sets
    for (let i = 0; i < 60_000; i++) {
      const key = next(100);
      const sub = 1 + next(60);
      const expected = model.admit(key, 0, sub);
      if (w.admit(key, 0, sub) !== expected) throw new Error(`op ${i}: key ${key} sub ${sub} expected ${String(expected)}`);
    }
    expect(w.size).toBe(model.size());
  });

  it('agrees with a plain reference model on any sequence, including colliding buckets, evictions and reused slots', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        // few distinct keys (some sharing low bits, some above 2^32) so probes collide and entries are evicted and re-admitted
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 1 }), fc.integer({ min: 1, max: 3 })), { maxLength: 300 }),
        (capacity, ops) => {
          const w = createDedupWindow(capacity);
          const model = referenceWindow(capacity);
          for (const [k, check, sub] of ops) {
            const key = k % 2 === 0 ? k * 1024 : k * 2 ** 33 + 7;
            expect(w.admit(key, check, sub)).toBe(model.admit(key, check, sub));
          }
          expect(w.size).toBe(model.size());
        },
      ),
      { numRuns: 300 },
    );
  });
});
