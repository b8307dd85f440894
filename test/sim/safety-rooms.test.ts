/**
 * The simulator's safety publisher remembers the last value of each room to send it as `previous`;
 * over weeks it must not remember every room ever joined.
 */
import { describe, expect, it } from 'vitest';
import type { MarketState } from '../../src/sim/model/market-state.js';
import type { TokenState, TradeRecord } from '../../src/sim/model/model-types.js';
import type { DatastreamHub } from '../../src/sim/stream/datastream-hub.js';
import { createSafetyPublisher } from '../../src/sim/stream/safety-rooms.js';

function fakeHub(): { hub: DatastreamHub; joined: Set<string>; sent: { room: string; data: { previous: number | null; total: number } }[] } {
  const joined = new Set<string>();
  const sent: { room: string; data: { previous: number | null; total: number } }[] = [];
  const hub = {
    has: (room: string) => joined.has(room),
    hasFamily: (f: string) => f === 'holders',
    publish: (room: string, data: { previous: number | null; total: number }) => void sent.push({ room, data }),
  } as unknown as DatastreamHub;
  return { hub, joined, sent };
}

/** A token with `holders` holders (only what the holders room reads). */
const token = (mint: string, holders: number): TokenState =>
  ({ mint, holderList: Array.from({ length: holders }, (_, i) => `w${i}`), deployer: 'dev', roles: new Map(), balances: new Map() }) as unknown as TokenState;
const trade = { wallet: 'w0', side: 'buy', tokenRaw: 1n, time: 1 } as unknown as TradeRecord;

describe('simulator safety rooms', () => {
  it('sends each holders change with the previous count, and forgets rooms nobody holds once it remembers too many', () => {
    const { hub, joined, sent } = fakeHub();
    const publish = createSafetyPublisher({} as MarketState, hub);
    joined.add('holders:KEEP');
    publish(token('KEEP', 3), trade);
    publish(token('KEEP', 5), trade);
    expect(sent.map((s) => s.data)).toEqual([
      { token: 'KEEP', total: 3, previous: null, timestamp: 1 },
      { token: 'KEEP', total: 5, previous: 3, timestamp: 1 },
    ]);
    // more rooms than it may remember joined, published once and left again (tokens that came and went)
    for (let i = 0; i < 25_000; i++) {
      joined.add(`holders:T${i}`);
      publish(token(`T${i}`, 1), trade);
      joined.delete(`holders:T${i}`);
    }
    joined.add('holders:T0');
    publish(token('T0', 2), trade);
    publish(token('KEEP', 6), trade);
    // T0 was forgotten while nobody held it; KEEP, held all along, kept its last value
    expect(sent.at(-2)?.data).toMatchObject({ total: 2, previous: null });
    expect(sent.at(-1)?.data).toMatchObject({ total: 6, previous: 5 });
  });
});
