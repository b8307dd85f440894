/**
 * The replay feed: recorded frames through the client's own room router, so overlapping rooms
 * dedup as they did live; a window sized to the recording dedups exactly as the default one.
 */
import { describe, expect, it } from 'vitest';
import type { UnixMs } from '../../src/core/index.js';
import type { StreamMessage } from '../../src/engine/events/feed-port.js';
import type { RecordLine } from '../../src/research/replay/recording-format.js';
import { createReplayFeed, REPLAY_DEDUP_CAPACITY, replayDedupCapacity } from '../../src/research/replay/replay-feed.js';
import { fingerprintInto, parseRows, resolveRoom } from '../../src/client/datastream/rooms/room-registry.js';
import { fpHi, fpLo } from '../../src/client/datastream/dedup/fingerprint.js';

const M = 'MintA111111111111111111111111111111111111111';
const swap = (tx: string): Record<string, unknown> => ({ tx, type: 'buy', wallet: 'W1', amount: 5, priceUsd: 1, time: 1, token: M });
const frame = (t: number, room: string, data: unknown): RecordLine => ({
  kind: 'frame',
  t,
  rt: undefined,
  frame: { type: 'message', room, data },
  text: undefined,
});

/** Every swap of `lines` delivered to one handler on two overlapping rooms: the tx of each delivered row. */
function replay(lines: readonly RecordLine[], dedupCapacity?: number): string[] {
  const feed = createReplayFeed(undefined, dedupCapacity === undefined ? {} : { dedupCapacity });
  const got: string[] = [];
  const handler = (m: StreamMessage): void => {
    for (const row of m.data as readonly { raw: { tx: string } }[]) got.push(row.raw.tx);
  };
  feed.subscribe(`transaction:${M}`, handler);
  feed.subscribe(`transaction:${M}:PoolA`, handler);
  for (const l of lines) if (l.kind === 'frame') feed.frame(l.frame, l.text, l.t as UnixMs);
  return got;
}

describe('replay feed', () => {
  it('delivers an event once to a handler of two overlapping rooms, with a window sized to the recording as with the default one', () => {
    const lines: RecordLine[] = [];
    for (let i = 0; i < 50; i++) {
      const rows = [swap(`sig${i}a`), swap(`sig${i}b`)];
      lines.push(frame(i, `transaction:${M}`, rows), frame(i, `transaction:${M}:PoolA`, rows));
    }
    // some events again much later, on one room only
    for (let i = 0; i < 50; i += 10) lines.push(frame(60 + i, `transaction:${M}`, swap(`sig${i}a`)));
    const sized = replayDedupCapacity(lines);
    expect(sized).toBe(50 * 2 * 2 + 5);
    expect(sized).toBeLessThan(REPLAY_DEDUP_CAPACITY);
    const delivered = replay(lines, sized);
    expect(delivered).toHaveLength(100);
    expect(new Set(delivered).size).toBe(100);
    expect(delivered).toEqual(replay(lines));
    // a window too small for the recording evicts, and an old event comes through again
    expect(replay(lines, 2).length).toBeGreaterThan(100);
  });
});

describe('replay feed joins', () => {
  const rows = (tx: string): unknown => [swap(tx)];
  it('delivers to handlers in the order they joined, also when the room joins the router only at its first frame', () => {
    const feed = createReplayFeed();
    const got: string[] = [];
    const handler =
      (name: string) =>
      (m: StreamMessage): void => {
        for (const row of m.data as readonly { raw: { tx: string } }[]) got.push(`${name}:${row.raw.tx}`);
      };
    const leaveA = feed.subscribe(`transaction:${M}`, handler('a'));
    feed.subscribe(`transaction:${M}`, handler('b'));
    const leaveC = feed.subscribe(`transaction:${M}`, handler('c'));
    leaveC(); // left before the room's first frame: never delivered to
    feed.frame({ type: 'message', room: `transaction:${M}`, data: rows('s1') }, undefined, 1 as UnixMs);
    feed.subscribe(`transaction:${M}`, handler('d')); // joins a room that has had frames
    leaveA();
    leaveA(); // a second call changes nothing
    feed.frame({ type: 'message', room: `transaction:${M}`, data: rows('s2') }, undefined, 2 as UnixMs);
    expect(got).toEqual(['a:s1', 'b:s1', 'b:s2', 'd:s2']);
    expect(feed.stats().unrouted).toBe(0);
  });

  it('drops the frames of a room every handler left, joined or still waiting for a frame, as unrouted', () => {
    const feed = createReplayFeed();
    const got: unknown[] = [];
    const leave = feed.subscribe(`transaction:${M}`, (m) => void got.push(m));
    const leaveOther = feed.subscribe(`transaction:${M}:PoolA`, (m) => void got.push(m));
    feed.frame({ type: 'message', room: `transaction:${M}`, data: rows('s1') }, undefined, 1 as UnixMs);
    leave();
    leaveOther();
    feed.frame({ type: 'message', room: `transaction:${M}`, data: rows('s2') }, undefined, 2 as UnixMs);
    feed.frame({ type: 'message', room: `transaction:${M}:PoolA`, data: rows('s3') }, undefined, 3 as UnixMs);
    expect(got).toHaveLength(1);
    expect(feed.stats().unrouted).toBe(2);
    expect(feed.stats().silentRooms).toEqual([]);
  });
});

describe('replay feed: rooms held outside the router', () => {
  /** The fingerprint halves the router gives the swap row `tx` of `room`. */
  const fpOf = (room: string, tx: string): [number, number] => {
    const r = resolveRoom(room);
    fingerprintInto(r, parseRows(r, [swap(tx)]).items[0]);
    return [fpHi(), fpLo()];
  };

  it("admits a prepared event under the same handler identity as the router's subscribers, whichever path saw the event first", () => {
    const feed = createReplayFeed();
    const got: string[] = [];
    const a = (m: StreamMessage): void => {
      for (const row of m.data as readonly { raw: { tx: string } }[]) got.push(row.raw.tx);
    };
    const b = (): void => undefined;
    feed.subscribe(`transaction:${M}`, a);
    feed.subscribe(`transaction:${M}:PoolA`, a);
    feed.subscribe(`transaction:${M}:PoolA`, b);
    // the first room joins the router at its frame (the client's path); the second is only ever entered by the prepared path
    feed.frame({ type: 'message', room: `transaction:${M}`, data: [swap('s1')] }, undefined, 1 as UnixMs);
    expect(got).toEqual(['s1']);
    const held = feed.enter(`transaction:${M}:PoolA`)!;
    const [hi, lo] = fpOf(`transaction:${M}`, 's1');
    // a's copy is a duplicate of the row the router delivered to a; b never had it
    expect(feed.admit(held, true, hi, lo)).toBe(1);
    expect(feed.stats().duplicates).toBe(1);
    // and the other way: an event first admitted on the prepared path is a duplicate on the client's path
    const [hi2, lo2] = fpOf(`transaction:${M}`, 's2');
    expect(feed.admit(held, true, hi2, lo2)).toBe(2);
    feed.frame({ type: 'message', room: `transaction:${M}`, data: [swap('s2')] }, undefined, 2 as UnixMs);
    expect(got).toEqual(['s1']);
    expect(feed.stats().duplicates).toBe(2);
    expect(feed.stats().unrouted).toBe(0);
  });

  it('forgets a room held outside the router once its last holder leaves', () => {
    const feed = createReplayFeed();
    const leave = feed.subscribe(`transaction:${M}:PoolA`, () => undefined);
    expect(feed.holds(`transaction:${M}:PoolA`)).toBe(true);
    expect(feed.enter(`transaction:${M}:PoolA`)?.holders).toHaveLength(1);
    leave();
    expect(feed.holds(`transaction:${M}:PoolA`)).toBe(false);
    expect(feed.enter(`transaction:${M}:PoolA`)).toBeUndefined();
    expect(feed.stats().unrouted).toBe(1);
  });
});

describe('replay feed join latency', () => {
  const rows = (tx: string): unknown => [swap(tx)];
  const room = `transaction:${M}`;
  /** A feed with a join latency on a clock the test sets, and the txs each handler got. */
  function setup(ms: number) {
    let now = 1_000;
    const feed = createReplayFeed(undefined, { joinLatency: { ms, now: () => now } });
    const got: string[] = [];
    const handler =
      (name: string) =>
      (m: StreamMessage): void => {
        for (const row of m.data as readonly { raw: { tx: string } }[]) got.push(`${name}:${row.raw.tx}`);
      };
    const at = (t: number, tx: string): void => {
      now = t;
      feed.frame({ type: 'message', room, data: rows(tx) }, undefined, t as UnixMs);
    };
    return { feed, got, handler, at, set: (t: number) => void (now = t) };
  }

  it("gives a room nobody held its frames from the join's time plus the latency, as a live join's round trip", () => {
    const t = setup(200);
    t.feed.subscribe(room, t.handler('a')); // joined at 1,000: frames from 1,200
    t.at(1_000, 's1');
    t.at(1_199, 's2');
    t.at(1_200, 's3');
    // a second handler of a room already held gets the next frame at once (the client has the room)
    t.set(1_300);
    t.feed.subscribe(room, t.handler('b'));
    t.at(1_300, 's4');
    expect(t.got).toEqual(['a:s3', 'a:s4', 'b:s4']);
    expect(t.feed.stats().unrouted).toBe(2);
  });

  it('waits again after every holder left and the room is joined anew', () => {
    const t = setup(200);
    const leave = t.feed.subscribe(room, t.handler('a'));
    t.at(1_500, 's1');
    leave();
    t.set(2_000);
    t.feed.subscribe(room, t.handler('b'));
    t.at(2_100, 's2');
    t.at(2_200, 's3');
    expect(t.got).toEqual(['a:s1', 'b:s3']);
  });

  it('delivers at once without a latency (a recording of a run: its frames begin where the live join took effect)', () => {
    const t = setup(0);
    t.feed.subscribe(room, t.handler('a'));
    t.at(1_000, 's1');
    expect(t.got).toEqual(['a:s1']);
  });
});
