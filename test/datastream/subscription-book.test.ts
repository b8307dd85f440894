/**
 * The subscription book (src/client/datastream/rooms/subscription-book.ts) on its own, with the
 * real room router and a fake wire that records the room frames it is given and can be "down".
 */
import { describe, expect, it } from 'vitest';
import { createRoomRouter } from '../../src/client/datastream/delivery/room-router.js';
import { createSubscriptionBook, type RoomFrame } from '../../src/client/datastream/rooms/subscription-book.js';
import { rooms } from '../../src/client/datastream/index.js';
import { createStats } from '../../src/client/datastream/stats.js';

function setup() {
  const router = createRoomRouter({ maxQueue: 10, overflow: 'drop-oldest', dedupCapacity: 100 }, createStats(), {
    onHandlerError: () => {
      throw new Error('no handler runs here');
    },
    onOverflow: () => undefined,
    countDropped: () => undefined,
    countCoalesced: () => undefined,
    invalid: () => undefined,
  });
  const wire = { up: true, sent: [] as RoomFrame[] };
  const book = createSubscriptionBook(router, {
    send(frame) {
      if (wire.up) wire.sent.push(frame);
      return wire.up;
    },
  });
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
});
