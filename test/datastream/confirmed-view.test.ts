import { afterEach, describe, expect, it } from 'vitest';
import { isChainpilotError, manualClock, seededRandom, type ManualClock } from '../../src/core/index.js';
import {
  createConfirmedLiquidityView,
  createDatastreamClient,
  rooms,
  type BackfillSource,
  type ConfirmedLiquidityView,
  type DatastreamClient,
  type DatastreamMessage,
  type HistoryQuery,
  type LiquidityEvent,
} from '../../src/client/datastream/index.js';
import { startStreamServer, waitFor, type StreamServer } from './helpers/stream-server.js';
import { liquidityEvent } from './helpers/events.js';

const KEY = 'confirm-key-8d21';

describe('confirmed-only liquidity view', () => {
  let server: StreamServer;
  let client: DatastreamClient;
  let view: ConfirmedLiquidityView | undefined;
  let clock: ManualClock;
  let restRows: LiquidityEvent[];
  let queries: HistoryQuery[];

  const setup = async (): Promise<void> => {
    server = await startStreamServer(KEY);
    clock = manualClock(1_700_000_000_000);
    client = createDatastreamClient({ url: server.url, apiKey: KEY, clock, random: seededRandom(5) });
    restRows = [];
    queries = [];
    await client.whenOpen();
  };
  // REST history as a small hand-written port: newest first, one page
  const source: BackfillSource = {
    fetchHistoryPage: (q) => {
      queries.push(q);
      return Promise.resolve({ rows: [...restRows].reverse(), hasNextPage: false });
    },
  };

  afterEach(async () => {
    view?.close();
    client.close();
    await server.close();
  });

  it('holds live events until REST shows them, then delivers them confirmed; drops what REST never shows', async () => {
    await setup();
    const dropped: LiquidityEvent[] = [];
    view = createConfirmedLiquidityView({ client, source, clock, holdMs: 60_000, pollMs: 5_000, onDrop: (_r, evs) => dropped.push(...evs) });
    const got: DatastreamMessage<'liquidity'>[] = [];
    view.subscribe(rooms.liquidity('MintA', { pool: 'PoolA' }), (m) => void got.push(m));
    await waitFor(() => server.open()[0]?.rooms.size === 1, 'join');
    const kept = liquidityEvent({ tx: 'T1', type: 'remove_liquidity' });
    const sibling = liquidityEvent({ tx: 'T1', type: 'add_liquidity' }); // same tx, distinct event
    const forked = liquidityEvent({ tx: 'T2' });
    server.publish('liquidity:MintA:PoolA', [kept, sibling, forked]);
    await waitFor(() => view!.stats().pending === 3, 'held');
    expect(got).toEqual([]);

    // REST confirms two of them, with canonical block time and identity differing from the live event
    restRows.push({ ...kept, time: kept.time - 800, identity: null }, { ...sibling, time: sibling.time - 800 });
    await view.check();
    await waitFor(() => got.length === 1, 'confirmed delivery');
    expect(got[0]!.commitment).toBe('confirmed');
    expect(got[0]!.data.map((e) => `${e.tx}/${e.type}`)).toEqual(['T1/remove_liquidity', 'T1/add_liquidity']);
    expect(queries[0]).toMatchObject({ token: 'MintA', pool: 'PoolA', events: 'liquidity', sortDirection: 'desc' });

    clock.advance(59_000);
    await view.check();
    expect(dropped).toEqual([]);
    clock.advance(1_000);
    await view.check();
    expect(dropped.map((e) => e.tx)).toEqual(['T2']);
    expect(view.stats()).toMatchObject({ confirmed: 2, dropped: 1, pending: 0 });
    expect(got).toHaveLength(1);
  });

  it('checks on its own every pollMs of the injected clock', async () => {
    await setup();
    view = createConfirmedLiquidityView({ client, source, clock, pollMs: 5_000 });
    view.subscribe(rooms.liquidity('MintA'), () => {});
    await waitFor(() => server.open()[0]?.rooms.size === 1, 'join');
    server.publish('liquidity:MintA', [liquidityEvent()]);
    await waitFor(() => view!.stats().pending === 1, 'held');
    clock.advance(5_000);
    await waitFor(() => view!.stats().checks === 1, 'first timed check');
    await waitFor(() => clock.pending() === 2, 'next check scheduled (besides the liveness check)');
    clock.advance(5_000);
    await waitFor(() => view!.stats().checks === 2, 'second timed check');
    expect(queries).toHaveLength(2);
  });

  it('refuses rooms that REST history cannot confirm', async () => {
    await setup();
    view = createConfirmedLiquidityView({ client, source, clock });
    let err: unknown;
    try {
      view.subscribe(rooms.liquidityPool('PoolA'), () => {});
    } catch (e) {
      err = e;
    }
    expect(isChainpilotError(err, 'STREAM_INVALID_ROOM')).toBe(true);
  });
});
