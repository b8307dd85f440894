import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isChainpilotError, manualClock, seededRandom, type ManualClock } from '../../src/core/index.js';
import { createDatastreamClient, rooms, type DatastreamClient, type DatastreamEvent, type DatastreamGap } from '../../src/client/datastream/index.js';
import { startStreamServer, waitFor, type StreamServer } from './helpers/stream-server.js';

const KEY = 'conn-key-77aa31';
const CAP = 1_000;

describe('Datastream connection (real ws server on 127.0.0.1, manual clock)', () => {
  let server: StreamServer | undefined;
  let client: DatastreamClient | undefined;
  let clock: ManualClock;
  let events: DatastreamEvent[];

  const make = async (url: string, extra: Record<string, number> = {}): Promise<DatastreamClient> => {
    clock = manualClock(5_000_000);
    client = createDatastreamClient({
      url,
      apiKey: KEY,
      clock,
      random: seededRandom(7),
      backoffBaseMs: 100,
      backoffCapMs: CAP,
      livenessTimeoutMs: 30_000,
      connectTimeoutMs: 2_000,
      stableAfterMs: 60_000,
      ...extra,
    });
    events = [];
    client.onEvent((e) => events.push(e));
    return client;
  };

  /** Advances the manual clock past the backoff cap and waits for the reconnect. */
  const reconnect = async (c: DatastreamClient): Promise<void> => {
    await waitFor(() => c.state === 'backoff', 'backoff');
    clock.advance(CAP);
    await c.whenOpen();
  };

  afterEach(async () => {
    client?.close();
    await server?.close();
    client = server = undefined;
  });

  it('reconnects after the server drops mid-stream, joins every room again once, and reports the gap', async () => {
    server = await startStreamServer(KEY);
    const c = await make(server.url);
    const gaps: DatastreamGap[] = [];
    c.onGap((g) => gaps.push(g));
    const prices: number[] = [];
    c.subscribe(rooms.price('MintA'), (m) => void prices.push((m.data as { price: number }).price));
    c.subscribe(rooms.graduated(), () => {});
    c.subscribe(rooms.price('MintA'), () => {});
    await c.whenOpen();
    await waitFor(() => server!.open()[0]?.rooms.size === 2, 'joins');
    server.publish('price:token:MintA', { price: 1 });
    await waitFor(() => prices.length === 1, 'first price');
    const droppedAt = clock.now();
    server.dropAll();
    await waitFor(() => c.state === 'backoff', 'backoff');
    clock.advance(250);
    clock.advance(CAP);
    await c.whenOpen();
    await waitFor(() => server!.open()[0]?.rooms.size === 2, 'joins again');
    server.publish('price:token:MintA', { price: 2 });
    await waitFor(() => prices.length === 2, 'price after reconnect');
    const second = server.conns[1]!;
    expect(second.joins.sort()).toEqual(['graduated', 'price:token:MintA']);
    expect(gaps).toHaveLength(1);
    expect(gaps[0]!.startedAt).toBe(droppedAt);
    expect(gaps[0]!.endedAt).toBe(clock.now());
    expect([...gaps[0]!.rooms].sort()).toEqual(['graduated', 'price:token:MintA']);
    expect(events.find((e) => e.kind === 'disconnected')).toMatchObject({ reason: 'server-closed' });
    const s = c.stats();
    expect(s.reconnects).toBe(1);
    expect(s.gapMsTotal).toBe(gaps[0]!.endedAt - gaps[0]!.startedAt);
  });

  it('recycles the socket when the server stops answering for the liveness timeout', async () => {
    server = await startStreamServer(KEY);
    const c = await make(server.url);
    c.subscribe('latest', () => {});
    await c.whenOpen();
    await waitFor(() => server!.open()[0]?.rooms.size === 1, 'join');
    server.silent = true;
    clock.advance(29_999);
    expect(c.state).toBe('open');
    clock.advance(1);
    expect(c.state).toBe('backoff');
    expect(events.find((e) => e.kind === 'disconnected')).toMatchObject({ reason: 'liveness' });
    server.silent = false;
    clock.advance(CAP);
    await c.whenOpen();
    await waitFor(() => server!.open().length === 1 && server!.open()[0]!.rooms.has('latest'), 'rejoin on the new socket');
    expect(server.conns).toHaveLength(2);
  });

  it('keeps the socket while pings arrive even when no data flows', async () => {
    server = await startStreamServer(KEY);
    const c = await make(server.url);
    await c.whenOpen();
    for (let i = 0; i < 5; i++) {
      clock.advance(20_000);
      server.sendRaw(JSON.stringify({ type: 'ping' }));
      await waitFor(() => c.stats().pings === i + 1, 'ping');
    }
    expect(c.state).toBe('open');
    expect(server.conns).toHaveLength(1);
  });

  it('gives up a connection attempt after the connect timeout and tries again', async () => {
    const sockets: Socket[] = [];
    let released = 0;
    const blackhole: Server = createServer((s) => {
      sockets.push(s);
      s.on('close', () => released++).resume();
    });
    await new Promise<void>((r) => blackhole.listen(0, '127.0.0.1', r));
    try {
      const c = await make(`ws://127.0.0.1:${(blackhole.address() as AddressInfo).port}`);
      await waitFor(() => sockets.length === 1, 'tcp accepted');
      clock.advance(2_000);
      expect(events[0]).toMatchObject({ kind: 'attempt-failed', reason: 'connect-timeout' });
      expect(c.state).toBe('backoff');
      await waitFor(() => released === 1, 'first socket released');
      clock.advance(CAP);
      await waitFor(() => sockets.length === 2, 'second attempt');
      expect(c.stats().liveSockets).toBe(1);
    } finally {
      client?.close();
      client = undefined;
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => blackhole.close(() => r()));
    }
  });

  it('stops with STREAM_AUTH_REFUSED after the configured refusals, without a tight loop or the key in the error', async () => {
    server = await startStreamServer('some-other-key');
    const c = await make(server.url, { authFailureLimit: 3 });
    const opened = c.whenOpen();
    const failure = opened.catch((e: unknown) => e);
    for (let i = 0; i < 10 && c.state !== 'stopped'; i++) {
      await waitFor(() => c.state === 'backoff' || c.state === 'stopped', 'refusal');
      clock.advance(CAP);
    }
    expect(c.state).toBe('stopped');
    expect(server.attempts).toBe(3);
    expect(clock.pending()).toBe(0);
    const stopped = events.find((e) => e.kind === 'stopped');
    expect(stopped && stopped.kind === 'stopped' && stopped.error.code).toBe('STREAM_AUTH_REFUSED');
    expect(JSON.stringify(events)).not.toContain(KEY);
    expect(JSON.stringify(c.stats())).not.toContain(KEY);
    expect(String((stopped as { error: Error }).error.message)).not.toContain(KEY);
    const e = await failure;
    expect(isChainpilotError(e, 'STREAM_AUTH_REFUSED')).toBe(true);
    clock.advance(10 * CAP);
    // A reconnect would have gone through connect(), which arms a timer on this clock synchronously.
    expect(c.state).toBe('stopped');
    expect(clock.pending()).toBe(0);
    expect(server.attempts).toBe(3);
  });

  it('treats a close with a policy-violation code after an auth error frame as a refusal', async () => {
    server = await startStreamServer(KEY);
    const c = await make(server.url, { authFailureLimit: 1 });
    await c.whenOpen();
    await waitFor(() => server!.open().length === 1, 'server side open');
    server.sendRaw(JSON.stringify({ type: 'error', message: 'invalid api key' }));
    await waitFor(() => c.stats().serverErrors === 1, 'error frame');
    server.open()[0]!.socket.close(1008, 'policy');
    await waitFor(() => c.state === 'stopped', 'breaker');
    expect(events.find((e) => e.kind === 'disconnected')).toMatchObject({ reason: 'auth-refused' });
  });

  it('never reconnects after close(), and refuses new subscriptions', async () => {
    server = await startStreamServer(KEY);
    const c = await make(server.url);
    await c.whenOpen();
    c.close();
    await waitFor(() => server!.open().length === 0, 'server sees the close');
    clock.advance(100 * CAP);
    // A reconnect would have gone through connect(), which arms a timer on this clock synchronously.
    expect(c.state).toBe('closed');
    expect(clock.pending()).toBe(0);
    expect(server.conns).toHaveLength(1);
    expect(clock.pending()).toBe(0);
    expect(() => c.subscribe('latest', () => {})).toThrowError(expect.objectContaining({ code: 'STREAM_CLOSED' }) as Error);
    await expect(c.whenOpen()).rejects.toMatchObject({ code: 'STREAM_CLOSED' });
  });

  it('stays closed when a listener closes the client while it handles a disconnect', async () => {
    server = await startStreamServer(KEY);
    const c = await make(server.url);
    c.onEvent((e) => {
      if (e.kind === 'disconnected') c.close();
    });
    await c.whenOpen();
    await waitFor(() => server!.open().length === 1, 'server side open');
    server.dropAll();
    await waitFor(() => c.state === 'closed', 'closed');
    clock.advance(100 * CAP);
    // A reconnect would have gone through connect(), which arms a timer on this clock synchronously.
    expect(c.state).toBe('closed');
    expect(clock.pending()).toBe(0);
    expect(server.conns).toHaveLength(1);
  });

  it('keeps exactly one live socket, one join per socket, and no leaked timers or listeners over 50 reconnects', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on('warning', onWarning);
    server = await startStreamServer(KEY);
    const c = await make(server.url);
    c.subscribe('latest', () => {});
    await c.whenOpen();
    for (let i = 0; i < 50; i++) {
      await waitFor(() => server!.open().length === 1 && server!.open()[0]!.rooms.has('latest'), 'joined on the server');
      if (i % 2 === 0) server.dropAll();
      else {
        server.silent = true;
        clock.advance(30_000);
        server.silent = false;
      }
      await reconnect(c);
      expect(c.stats().liveSockets).toBe(1);
      expect(clock.pending()).toBe(1); // only the liveness check
    }
    await waitFor(() => server!.open().length === 1 && server!.open()[0]!.rooms.size === 1, 'last join');
    expect(server.maxOpen).toBe(1);
    expect(server.conns).toHaveLength(51);
    expect(server.conns.map((k) => k.joins.join(',')).filter((j) => j !== 'latest')).toEqual([]);
    expect(c.stats().reconnects).toBe(50);
    process.off('warning', onWarning);
    expect(warnings.filter((w) => w === 'MaxListenersExceededWarning')).toEqual([]);
  });
});
