import { describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/index.js';
import { createRoomOwners } from '../../src/engine/room-owners.js';
import { fakeFeed } from './fake-feed.js';

describe('room owners', () => {
  it('joins a room on its first hold and leaves it on its last release, with owners in deployment order', () => {
    const feed = fakeFeed(manualClock(0));
    const rooms = createRoomOwners(feed, ['a', 'b', 'c'], () => undefined);
    rooms.acquire('c', 'R');
    rooms.acquire('a', 'R');
    rooms.acquire('c', 'R'); // a second hold of c (a watch and an open position, say)
    rooms.acquire('b', 'R');
    expect(rooms.owners('R')).toEqual(['a', 'b', 'c']);
    expect(feed.history).toEqual(['join R']);
    rooms.release('c', 'R');
    expect(rooms.owners('R')).toEqual(['a', 'b', 'c']);
    rooms.release('c', 'R');
    rooms.release('a', 'R');
    expect(rooms.owners('R')).toEqual(['b']);
    rooms.release('x', 'R'); // not an owner: nothing happens
    rooms.release('b', 'R');
    expect(rooms.owners('R')).toEqual([]);
    expect(rooms.rooms()).toEqual([]);
    expect(feed.history).toEqual(['join R', 'leave R']);
  });

  it('hands out owner lists that later holds and releases do not change (an event mid-dispatch keeps its list)', () => {
    const rooms = createRoomOwners(fakeFeed(manualClock(0)), ['a', 'b'], () => undefined);
    rooms.acquire('b', 'R');
    const during = rooms.owners('R');
    rooms.acquire('a', 'R');
    const after = rooms.owners('R');
    rooms.release('b', 'R');
    expect(during).toEqual(['b']);
    expect(after).toEqual(['a', 'b']);
    expect(rooms.owners('R')).toEqual(['a']);
  });

  it('leaves every room at once on releaseAll', () => {
    const feed = fakeFeed(manualClock(0));
    const rooms = createRoomOwners(feed, ['a'], () => undefined);
    rooms.acquire('a', 'R1');
    rooms.acquire('a', 'R2');
    rooms.releaseAll();
    expect(feed.joined()).toEqual([]);
    expect(rooms.rooms()).toEqual([]);
  });
});
