import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualClock, seededRandom } from '../../src/core/index.js';
import { createDatastreamClient, type DatastreamClient } from '../../src/client/datastream/index.js';
import type { StreamMessage } from '../../src/engine/events/feed-port.js';
import { seenFeed } from '../../src/runtime/handle/feed-watch.js';
import { liquidityEvent } from '../datastream/helpers/events.js';
import { startStreamServer, waitFor, type StreamServer } from '../datastream/helpers/stream-server.js';

const KEY = 'test-key-seen-feed-7d1e';

describe("a deployment's watched feed (real ws server on 127.0.0.1)", () => {
  let server: StreamServer;
  let client: DatastreamClient;

  beforeEach(async () => {
    server = await startStreamServer(KEY);
    client = createDatastreamClient({ url: server.url, apiKey: KEY, clock: manualClock(1_000_000), random: seededRandom(1) });
    await client.whenOpen();
  });

  afterEach(async () => {
    client.close();
    await server.close();
  });

  it('delivers an event of overlapping rooms once to one handler, as the client does without the watch, and notes every delivery', async () => {
    const seen: string[] = [];
    const feed = seenFeed(client, (m) => seen.push(m.room));
    const got: string[] = [];
    const handler = (m: StreamMessage): void => {
      for (const e of m.data as readonly { tx: string }[]) got.push(`${m.room} ${e.tx}`);
    };
    feed.subscribe('liquidity:MintA', handler);
    feed.subscribe('liquidity:pool:PoolA', handler);
    const other: string[] = [];
    feed.subscribe('liquidity:pool:PoolA', (m) => void other.push(m.room));
    await waitFor(() => server.open()[0]!.rooms.size === 2, 'two joins');
    const event = liquidityEvent({ tx: 'shared1' });
    server.publish('liquidity:MintA', [event]);
    server.publish('liquidity:pool:PoolA', [event, liquidityEvent({ tx: 'own1' })]);
    await waitFor(() => got.length === 2 && other.length === 1, 'deliveries');
    expect(got).toEqual(['liquidity:MintA shared1', 'liquidity:pool:PoolA own1']);
    expect(other).toEqual(['liquidity:pool:PoolA']);
    expect(seen).toEqual(['liquidity:MintA', 'liquidity:pool:PoolA', 'liquidity:pool:PoolA']);
  });
});
