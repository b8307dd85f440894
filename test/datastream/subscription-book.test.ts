/**
 * The subscription book (src/client/datastream/rooms/subscription-book.ts) on its own, with the
 * real room router and a fake wire that records the room frames it is given and can be "down".
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRoomRouter } from '../../src/client/datastream/delivery/room-router.js';
import { createSubscriptionBook, type RoomFrame } from '../../src/client/datastream/rooms/subscription-book.js';
import { rooms } from '../../src/client/datastream/index.js';
import { createStats } from '../../src/client/datastream/stats.js';

function setup(windowMs = 0) {
  const router = createRoomRouter({ maxQueue: 10, overflow: 'drop-oldest', dedupCapacity: 100 }, createStats(), {
    onHandlerError: () => {
      throw new Error('no handler runs here');
    },
    onOverflow: () => undefined,
    countDropped: () => undefined,
    countCoalesced: () => undefined,
    invalid: () => undefined,
  });
  // `writes` is what reached the socket write by write: one entry per batch (the socket corked), or one per frame sent outside one.
  const wire = { up: true, sent: [] as RoomFrame[], writes: [] as RoomFrame[][], open: undefined as RoomFrame[] | undefined };
  const book = createSubscriptionBook(
    router,
    {
      send(frame) {
        if (!wire.up) return false;
        wire.sent.push(frame);
        if (wire.open) wire.open.push(frame);
        else wire.writes.push([frame]);
        return true;
      },
      batch(sends) {
        wire.open = [];
        sends();
        if (wire.open.length > 0) wire.writes.push(wire.open);
        wire.open = undefined;
      },
    },
    windowMs,
  );
  return { book, wire };
}

/** Resolves after the book's flush: it was queued with setImmediate before this one. */
const afterTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('subscription book', () => {
  it('writes one join per room after the turn, however many subscribers, and one leave when the last goes', async () => {
    const { book, wire } = setup();
    const room = rooms.liquidity('MintA');
    const a = book.subscribe(room, () => {});
    const b = book.subscribe(room, () => {});
    expect(wire.sent).toEqual([]);
    await afterTurn();
    expect(wire.sent).toEqual([{ type: 'join', room }]);
    a();
    b();
    b();
    await afterTurn();
    expect(wire.sent).toEqual([
      { type: 'join', room },
      { type: 'leave', room },
    ]);
    expect(book.rooms()).toEqual([]);
  });

  it('forgets what a socket that went down was told: changes made while down reach the next socket only through joinAll', async () => {
    const { book, wire } = setup();
    const kept = rooms.liquidity('MintKept');
    const left = rooms.liquidity('MintLeft');
    book.subscribe(kept, () => {});
    const leave = book.subscribe(left, () => {});
    await afterTurn();
    wire.up = false;
    leave(); // the leave finds no socket: nothing is remembered as told
    const late = rooms.liquidity('MintLate');
    book.subscribe(late, () => {});
    await afterTurn();
    wire.up = true;
    wire.sent.length = 0;
    book.joinAll();
    expect(wire.sent).toEqual([
      { type: 'join', room: kept },
      { type: 'join', room: late },
    ]);
    expect(book.size).toBe(2);
  });

  it('after close: subscribe throws STREAM_CLOSED, unsubscribes still release their handlers, nothing more is written', async () => {
    const { book, wire } = setup();
    const room = rooms.liquidity('MintA');
    const unsubscribe = book.subscribe(room, () => {});
    book.close();
    unsubscribe();
    await afterTurn();
    expect(wire.sent).toEqual([]);
    expect(book.rooms()).toEqual([]);
    expect(() => book.subscribe(room, () => {})).toThrow(expect.objectContaining({ code: 'STREAM_CLOSED' }) as Error);
  });

  it("writes a turn's joins and leaves in one socket write, and a reconnect's joins in one more", async () => {
    const { book, wire } = setup();
    const leaving = book.subscribe(rooms.liquidity('MintGone'), () => {});
    await afterTurn();
    wire.writes.length = 0;
    const many = Array.from({ length: 20 }, (_, i) => rooms.liquidity(`Mint${i}`));
    for (const room of many) book.subscribe(room, () => {});
    leaving();
    const flicker = book.subscribe(rooms.liquidity('MintFlicker'), () => {});
    flicker(); // joined and left in one turn: nothing to write
    await afterTurn();
    expect(wire.writes).toHaveLength(1);
    expect(wire.writes[0]).toHaveLength(21);
    expect(wire.writes[0]).toContainEqual({ type: 'leave', room: rooms.liquidity('MintGone') });
    expect(wire.writes[0]!.some((f) => f.room === rooms.liquidity('MintFlicker'))).toBe(false);
    book.joinAll();
    expect(wire.writes).toHaveLength(2);
    expect(wire.writes[1]).toHaveLength(20);
  });

  describe('with a write window (fake timers and performance.now: the window is real time)', () => {
    beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] }));
    afterEach(() => vi.useRealTimers());

    it('a change after a quiet window goes out after the turn; changes within the window go in one write at its end; a room left and joined again within it writes nothing', () => {
      const { book, wire } = setup(40);
      const first = rooms.liquidity('MintFirst');
      const leaveFirst = book.subscribe(first, () => {});
      vi.advanceTimersByTime(0); // nothing written for 40 ms before: after the turn
      expect(wire.writes).toEqual([[{ type: 'join', room: first }]]);
      const second = rooms.liquidity('MintSecond');
      book.subscribe(second, () => {});
      leaveFirst();
      book.subscribe(first, () => {}); // left and joined again within the window
      book.subscribe(rooms.liquidity('MintFlicker'), () => {})(); // joined and left within it
      vi.advanceTimersByTime(39);
      expect(wire.writes).toHaveLength(1);
      vi.advanceTimersByTime(1);
      expect(wire.writes).toEqual([[{ type: 'join', room: first }], [{ type: 'join', room: second }]]);
      expect(book.rooms().sort()).toEqual([first, second].sort());
    });

    it('close drops the changes that wait for the window', () => {
      const { book, wire } = setup(1_000);
      book.subscribe(rooms.liquidity('MintA'), () => {});
      vi.advanceTimersByTime(0);
      book.subscribe(rooms.liquidity('MintB'), () => {});
      book.close();
      vi.advanceTimersByTime(2_000);
      expect(wire.writes).toHaveLength(1);
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});
