import { afterEach, describe, expect, it } from 'vitest';
import { isChainpilotError, manualClock, seededRandom, type ChainpilotError } from '../../src/core/index.js';
import {
  createConfirmedLiquidityView,
  createDatastreamClient,
  rooms,
  type BackfillSource,
  type ConfirmedLiquidityView,
  type DatastreamClient,
  type LiquidityEvent,
} from '../../src/client/datastream/index.js';
import { startStreamServer, waitFor, type StreamServer } from '../datastream/helpers/stream-server.js';
import { liquidityEvent } from '../datastream/helpers/events.js';

const KEY = 'confirm-codes-key-5c1e';

describe('confirmed liquidity view error codes (real stream server on 127.0.0.1)', () => {
  let server: StreamServer | undefined;
  let client: DatastreamClient | undefined;
  let view: ConfirmedLiquidityView | undefined;

  afterEach(async () => {
    view?.close();
    client?.close();
    await server?.close();
  });

  /** A live client joined to one liquidity room through the view, with one event held. */
  const heldEvent = async (source: BackfillSource, handler: () => void): Promise<{ errors: [string, ChainpilotError][]; event: LiquidityEvent }> => {
    server = await startStreamServer(KEY);
    const clock = manualClock(1_700_000_000_000);
    client = createDatastreamClient({ url: server.url, apiKey: KEY, clock, random: seededRandom(9) });
    await client.whenOpen();
    const errors: [string, ChainpilotError][] = [];
    view = createConfirmedLiquidityView({ client, source, clock, onError: (room, e) => errors.push([room, e]) });
    view.subscribe(rooms.liquidity('MintA'), handler);
    await waitFor(() => server!.open()[0]?.rooms.size === 1, 'join');
    const event = liquidityEvent({ tx: 'T1' });
    server.publish('liquidity:MintA', [event]);
    await waitFor(() => view!.stats().pending === 1, 'held');
    return { errors, event };
  };

  it('reports STREAM_CONFIRM_FAILED when REST history fails, and keeps the event held', async () => {
    const failing: BackfillSource = { fetchHistoryPage: () => Promise.reject(new Error('REST down')) };
    const { errors } = await heldEvent(failing, () => {});
    await view!.check();
    expect(errors).toHaveLength(1);
    expect(errors[0]![0]).toBe('liquidity:MintA');
    expect(isChainpilotError(errors[0]![1], 'STREAM_CONFIRM_FAILED')).toBe(true);
    expect(errors[0]![1].message).toContain('REST down');
    expect(view!.stats()).toMatchObject({ pending: 1, checkFailures: 1 });
  });

  it('reports STREAM_HANDLER_FAILED when the handler of a confirmed event throws', async () => {
    const restRows: LiquidityEvent[] = [];
    const source: BackfillSource = { fetchHistoryPage: () => Promise.resolve({ rows: [...restRows], hasNextPage: false }) };
    const { errors, event } = await heldEvent(source, () => {
      throw new Error('strategy bug');
    });
    restRows.push(event);
    await view!.check();
    await waitFor(() => errors.length === 1, 'handler error reported');
    expect(isChainpilotError(errors[0]![1], 'STREAM_HANDLER_FAILED')).toBe(true);
    expect(errors[0]![1].message).toContain('strategy bug');
    expect(view!.stats()).toMatchObject({ confirmed: 1, pending: 0 });
  });
});
