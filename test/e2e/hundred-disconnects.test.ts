/**
 * 100 forced disconnects against a real ws server and a real HTTP history server: after each,
 * every room is joined exactly once, and every event the server sent or recorded is delivered to
 * each handler exactly once (live, or via REST backfill when it was lost in the gap).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, seededRandom } from '../../src/core/index.js';
import { createDatastreamClient, rooms, type DatastreamClient, type DatastreamMessage } from '../../src/client/datastream/index.js';
import { startStreamServer, waitFor, type StreamServer } from '../datastream/helpers/stream-server.js';
import { httpBackfillSource, startHistoryServer, type HistoryServer } from '../datastream/helpers/history-server.js';
import { liquidityEvent } from '../datastream/helpers/events.js';

const KEY = 'hundred-key-4b1e';
const CAP = 200;

describe('Datastream client over 100 forced disconnects', () => {
  let stream: StreamServer;
  let history: HistoryServer;
  let client: DatastreamClient;
  const clock = manualClock(1_700_000_000_000);
  const rnd = seededRandom(100);

  beforeAll(async () => {
    stream = await startStreamServer(KEY);
    history = await startHistoryServer();
    client = createDatastreamClient({
      url: stream.url,
      apiKey: KEY,
      clock,
      random: seededRandom(9),
      backoffBaseMs: 50,
      backoffCapMs: CAP,
      backfill: httpBackfillSource(history.baseUrl),
      backfillPageLimit: 7,
      backfillOverlapMs: 2_000, // REST times in this test differ from live times by up to 900 ms
    });
  });

  afterAll(async () => {
    client.close();
    await stream.close();
    await history.close();
  });

  it('joins every room exactly once after each reconnect and loses or doubles no event', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on('warning', onWarning);
    const liqSeen = new Map<string, number>(); // tx -> deliveries to the liquidity handler
    const swapSeen = new Map<string, number>();
    const launchSeen = new Map<string, number>();
    const origins = { live: 0, backfill: 0 };
    const bump = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);
    // one handler on overlapping liquidity rooms (token, token+pool, pool): each event once
    const onLiquidity = (msg: DatastreamMessage<'liquidity'>): void => {
      origins[msg.origin]++;
      for (const e of msg.data) bump(liqSeen, e.tx);
    };
    client.subscribe(rooms.liquidity('MintA'), onLiquidity);
    client.subscribe(rooms.liquidity('MintA', { pool: 'PoolA' }), onLiquidity);
    client.subscribe(rooms.liquidityPool('PoolA'), onLiquidity);
    client.subscribe(rooms.transactions('MintA'), (msg) => {
      for (const e of msg.data) bump(swapSeen, String(e.tx));
    });
    client.subscribe(rooms.latest(), (msg) => bump(launchSeen, msg.data.token.mint));
    const roomSet = ['latest', 'liquidity:MintA', 'liquidity:MintA:PoolA', 'liquidity:pool:PoolA', 'transaction:MintA'];
    await client.whenOpen();

    const sentLiq: string[] = [];
    const sentSwaps: string[] = [];
    const sentLaunches: string[] = [];
    let n = 0;
    const emit = (live: boolean): void => {
      n++;
      const pool = rnd.chance(0.5) ? 'PoolA' : 'PoolB';
      const time = clock.now();
      if (rnd.chance(0.7)) {
        // liquidity: sometimes two events in one tx (a rebalance)
        const tx = `L${n}`;
        const evs = rnd.chance(0.3)
          ? [liquidityEvent({ tx, type: 'remove_liquidity', pool, time }), liquidityEvent({ tx, type: 'add_liquidity', pool, time })]
          : [liquidityEvent({ tx, pool, time })];
        for (const e of evs) history.rows.push({ ...e, time: time - rnd.int(0, 900) });
        sentLiq.push(...evs.map(() => tx));
        if (live) {
          stream.publish('liquidity:MintA', evs);
          if (pool === 'PoolA') {
            stream.publish('liquidity:MintA:PoolA', evs);
            stream.publish('liquidity:pool:PoolA', evs);
          }
        }
      } else {
        const swap = {
          tx: `S${n}`,
          type: rnd.chance(0.5) ? 'buy' : 'sell',
          token: 'MintA',
          pool,
          wallet: `W${n % 5}`,
          amount: String(n),
          priceUsd: 0.1,
          volume: 1,
          time,
        };
        history.rows.push(swap);
        sentSwaps.push(swap.tx);
        if (live) stream.publish('transaction:MintA', [swap]);
      }
    };

    for (let round = 0; round < 100; round++) {
      await waitFor(() => {
        const open = stream.open();
        return open.length === 1 && roomSet.every((r) => open[0]!.rooms.has(r));
      }, `joins of round ${round}`);
      // live traffic, the last of it possibly in flight when the socket dies
      const live = rnd.int(1, 6);
      for (let i = 0; i < live; i++) {
        emit(true);
        clock.advance(rnd.int(0, 3));
      }
      // a launch (no REST history exists for it): wait until it arrived before dropping
      const mint = `Mint${round}`;
      stream.publish('latest', { token: { name: mint, symbol: 'M', mint }, pools: [] });
      sentLaunches.push(mint);
      await waitFor(() => launchSeen.has(mint), 'launch');
      stream.dropAll();
      await waitFor(() => client.state === 'backoff', 'backoff');
      // events during the gap exist only in REST history
      const missed = rnd.int(0, 5);
      for (let i = 0; i < missed; i++) {
        clock.advance(rnd.int(0, 20));
        emit(false);
      }
      clock.advance(CAP);
      await client.whenOpen();
      await client.backfillsIdle();
    }
    await waitFor(() => stream.open()[0]?.rooms.size === roomSet.length, 'final joins');

    // every connection joined every room exactly once
    expect(stream.conns).toHaveLength(101);
    for (const c of stream.conns) expect([...c.joins].sort()).toEqual(roomSet);
    expect(stream.maxOpen).toBe(1);
    // nothing lost, nothing doubled
    const expectCounts = (sent: string[]): Map<string, number> => {
      const m = new Map<string, number>();
      for (const tx of sent) m.set(tx, (m.get(tx) ?? 0) + 1);
      return m;
    };
    expect(liqSeen).toEqual(expectCounts(sentLiq));
    expect(swapSeen).toEqual(expectCounts(sentSwaps));
    expect(launchSeen).toEqual(expectCounts(sentLaunches));
    expect(origins.backfill).toBeGreaterThan(0);
    expect(origins.live).toBeGreaterThan(0);
    const s = client.stats();
    expect(s.reconnects).toBe(100);
    expect(s.gaps).toBe(100);
    expect(s.backfillFailures).toBe(0);
    process.off('warning', onWarning);
    expect(warnings).toEqual([]);
  });
});
