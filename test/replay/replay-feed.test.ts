/**
 * The replay feed: recorded frames through the client's own room router, so overlapping rooms
 * dedup as they did live; a window sized to the recording dedups exactly as the default one.
 */
import { describe, expect, it } from 'vitest';
import type { UnixMs } from '../../src/core/index.js';
import type { StreamMessage } from '../../src/engine/events/feed-port.js';
import type { RecordLine } from '../../src/research/replay/recording-format.js';
import { createReplayFeed, REPLAY_DEDUP_CAPACITY, replayDedupCapacity } from '../../src/research/replay/replay-feed.js';

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
