/**
 * A frame's deliveries in bounded slices (delivery/delivery-queue.ts, the client's
 * `deliveriesMayPause` with `sliceMs`, as the daemon's shared feeds use it): a frame for three
 * subscribers reaches them over several event-loop turns, yet each subscriber gets every message
 * once and in order, no subscriber gets a frame before every subscriber got the one before it, and
 * the frame counts as received only once its last delivery was made (the lockstep driver waits for
 * that). Real client, real socket on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/index.js';
import { createDatastreamClient, rooms, type DatastreamClient } from '../../src/client/datastream/index.js';
import { liquidityEvent } from './helpers/events.js';
import { startStreamServer, waitFor, type StreamServer } from './helpers/stream-server.js';

let server: StreamServer | undefined;
let client: DatastreamClient | undefined;
afterEach(async () => {
  client?.close();
  await server?.close();
});

const frame = (room: string, tx: string): string => JSON.stringify({ type: 'message', room, data: [liquidityEvent({ tx })] });

interface Call {
  readonly who: string;
  readonly tx: string;
  readonly frames: number;
  readonly turn: number;
}

/** Three subscribers (three handlers) of one room get a burst of `n` frames; each call notes the turn it ran in. */
async function burst(key: string, n: number, mayPause: () => boolean, onCall?: (c: Call, leave: ReadonlyMap<string, () => void>) => void): Promise<Call[]> {
  server = await startStreamServer(key);
  const c = createDatastreamClient({ url: server.url, apiKey: key, random: seededRandom(9), sliceMs: 0, deliveriesMayPause: mayPause });
  client = c;
  const room = rooms.liquidity('MintA');
  const calls: Call[] = [];
  let turn = 0;
  let turning = true;
  const leave = new Map<string, () => void>();
  const tick = (): void => {
    turn++;
    if (turning) setImmediate(tick);
  };
  for (const who of ['A', 'B', 'C']) {
    const unsubscribe = c.subscribe(room, (m) => {
      const call = { who, tx: m.data[0]!.tx, frames: c.framesReceived(), turn };
      calls.push(call);
      onCall?.(call, leave);
    });
    leave.set(who, unsubscribe);
  }
  await c.whenOpen();
  await waitFor(() => server!.open()[0]?.rooms.size === 1, 'join');
  setImmediate(tick);
  server.sendBurst(Array.from({ length: n }, (_, i) => frame(room, `F${i}`)));
  await waitFor(() => calls.filter((x) => x.who === 'C').length === n, 'the burst to the last subscriber');
  turning = false;
  return calls;
}

describe('a frame delivered in bounded slices', () => {
  it('pauses between subscribers: each gets every frame once, in order, frame by frame, counted once its last delivery is made', async () => {
    const calls = await burst('sliced-delivery-key-1', 20, () => true);
    // frame-major: every subscriber gets frame i before any gets frame i+1
    expect(calls.map((c) => `${c.tx}${c.who}`)).toEqual(Array.from({ length: 20 }, (_, i) => [`F${i}A`, `F${i}B`, `F${i}C`]).flat());
    // a frame counts as received when its last subscriber got it
    expect(calls.map((c) => c.frames)).toEqual(Array.from({ length: 20 }, (_, i) => [i, i, i + 1]).flat());
    // with a 0 ms slice one frame's deliveries spread over turns: the other two wait for later turns
    for (let i = 0; i < 20; i++) {
      const [a, b, c] = calls.slice(3 * i, 3 * i + 3);
      expect(b!.turn, `frame ${i}: B after A's turn`).toBeGreaterThan(a!.turn);
      expect(c!.turn, `frame ${i}: C after B's turn`).toBeGreaterThan(b!.turn);
    }
    expect(client!.stats()).toMatchObject({ frames: 20, messages: 20, duplicates: 0 });
    expect(client!.framesReceived()).toBe(20);
  });

  it('does not pause inside a frame when the owner says no (a recording holder): one frame, one turn', async () => {
    const calls = await burst('sliced-delivery-key-2', 10, () => false);
    expect(calls.map((c) => `${c.tx}${c.who}`)).toEqual(Array.from({ length: 10 }, (_, i) => [`F${i}A`, `F${i}B`, `F${i}C`]).flat());
    expect(calls.map((c) => c.frames)).toEqual(Array.from({ length: 10 }, (_, i) => [i + 1, i + 1, i + 1]).flat());
    for (let i = 0; i < 10; i++) {
      const [a, b, c] = calls.slice(3 * i, 3 * i + 3);
      expect([b!.turn, c!.turn], `frame ${i} in one turn`).toEqual([a!.turn, a!.turn]);
    }
  });

  it('drops the waiting deliveries of a subscriber that left meanwhile, and delivers the others', async () => {
    // A's handler unsubscribes B at frame 2, while B's delivery of frame 2 waits for the next turn
    const calls = await burst(
      'sliced-delivery-key-3',
      6,
      () => true,
      (call, leave) => {
        if (call.who === 'A' && call.tx === 'F2') leave.get('B')?.();
      },
    );
    const of = (who: string): string[] => calls.filter((c) => c.who === who).map((c) => c.tx);
    expect(of('A')).toEqual(['F0', 'F1', 'F2', 'F3', 'F4', 'F5']);
    expect(of('B')).toEqual(['F0', 'F1']);
    expect(of('C')).toEqual(['F0', 'F1', 'F2', 'F3', 'F4', 'F5']);
    expect(client!.framesReceived()).toBe(6);
  });
});
