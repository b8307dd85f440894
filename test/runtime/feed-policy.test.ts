/**
 * The watched feed: the handle subscribes to the feed's events and counters, reports each problem
 * once with its cause, and applies `feed.onLoss`. The first tests inject a narrow fake connection
 * and a manual clock (time matters); the last ones run on the real simulator over real sockets.
 */
import { wire } from '../engine/wire.js';
import { afterEach, describe, expect, it } from 'vitest';
import { loadDeployment } from '../../src/config/index.js';
import { manualClock } from '../../src/core/index.js';
import type { StreamMessage } from '../../src/engine/events/feed-port.js';
import { createDeployment } from '../../src/runtime/handle/create-deployment.js';
import type { DeploymentEvent, FeedConnection, FeedWatchStats } from '../../src/runtime/handle/deployment-handle.js';
import { runPaper } from '../../src/runtime/shell/run-paper.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';
import { captureLog, tempDir, until, type TempDir } from './helpers.js';

let tmp: TempDir | undefined;
let sim: RunningSimulator | undefined;
let ticker: NodeJS.Timeout | undefined;
afterEach(async () => {
  if (ticker) clearInterval(ticker);
  ticker = undefined;
  await sim?.stop();
  sim = undefined;
  tmp?.remove();
  tmp = undefined;
});

/** A narrow fake of what the handle reads of a connection: rooms, events, counters, state. */
function fakeConnection(): FeedConnection & {
  deliver(room: string, data: unknown, at: number): void;
  event(e: { kind: string } & Record<string, unknown>): void;
  stats: FeedWatchStats & { frames: number };
  state: string;
} {
  const handlers = new Map<string, Set<(m: StreamMessage) => void>>();
  const events = new Set<(e: { kind: string } & Record<string, unknown>) => void>();
  const stats = { frames: 0, gaps: 0, reconnects: 0, parseFailures: 0, invalidPayloads: 0, dropped: 0, backfillFailures: 0 };
  const c = {
    state: 'open',
    stats,
    feed: {
      subscribe(room: string, h: (m: StreamMessage) => void) {
        const set = handlers.get(room) ?? new Set();
        set.add(h);
        handlers.set(room, set);
        return () => void set.delete(h);
      },
      onGap: () => () => undefined,
    },
    data: { get: () => Promise.reject(new Error('no REST in this test')) },
    watch: {
      onEvent(h: (e: { kind: string } & Record<string, unknown>) => void) {
        events.add(h);
        return () => void events.delete(h);
      },
      get state() {
        return c.state;
      },
      stats: () => ({ ...stats }),
    },
    release: () => Promise.resolve(),
    deliver(room: string, data: unknown, at: number) {
      stats.frames++;
      const message = wire(room, data, at);
      for (const h of handlers.get(room) ?? []) h(message);
    },
    event(e: { kind: string } & Record<string, unknown>) {
      if (e.kind === 'connected') c.state = 'open';
      if (e.kind === 'disconnected') c.state = 'backoff';
      if (e.kind === 'stopped') c.state = 'stopped';
      for (const h of events) h(e);
    },
  };
  return c;
}

function deployment(extra: string[] = []): string {
  tmp ??= tempDir('cp-feed-');
  return tmp.write(
    'feed.yaml',
    [
      'version: 1',
      'name: feed-test',
      'strategies:',
      '  - use: graduation-sniper',
      'feed:',
      '  staleAfter: 5s',
      ...extra,
      'telemetry:',
      '  logLevel: warn',
      '',
    ].join('\n'),
  );
}

describe('the watched feed', () => {
  it('pauses entries when the feed goes stale, says why once, and resumes on the next frame', async () => {
    const clock = manualClock(1_000_000);
    const conn = fakeConnection();
    const { log, lines } = captureLog();
    const handle = createDeployment(loadDeployment(deployment()), { mode: 'paper', clock, connection: conn, log });
    const events: DeploymentEvent[] = [];
    handle.events.on((e) => events.push(e));
    await handle.start();
    expect(handle.health().state).toBe('running');
    conn.deliver('graduated', { token: { mint: 'MintStale' } }, clock.now());
    clock.advance(4_000);
    expect(handle.health().state).toBe('running');
    clock.advance(3_000);
    expect(handle.health().state).toBe('paused');
    expect(handle.health().cause?.code).toBe('RUNTIME_FEED_LOST');
    expect(handle.health().feed.state).toBe('stale');
    clock.advance(30_000);
    expect(lines.filter((l) => l.includes('feed: stale')).length).toBe(1);
    expect(events.some((e) => e.type === 'alert' && e.level === 'warn' && e.code === 'RUNTIME_FEED_LOST')).toBe(true);
    conn.deliver('graduated', { token: { mint: 'MintStale' } }, clock.now());
    expect(handle.health().state).toBe('running');
    expect(events.some((e) => e.type === 'alert' && e.level === 'info' && e.message.includes('resume'))).toBe(true);
    await handle.stop();
  });

  it('counts rejected payloads per room family, logs each family once, and shows them in health', async () => {
    const clock = manualClock(1_000_000);
    const conn = fakeConnection();
    const { log, lines } = captureLog();
    const handle = createDeployment(loadDeployment(deployment()), { mode: 'paper', clock, connection: conn, log });
    await handle.start();
    const mint = 'So11111111111111111111111111111111111111112';
    for (let i = 0; i < 5; i++) conn.event({ kind: 'invalid-payload', room: `price:token:${mint}`, reason: 'price: expected a number', rejected: 1 });
    conn.event({ kind: 'malformed', reason: 'not JSON', sample: '{' });
    const feed = handle.health().feed;
    expect(feed.rejected).toBe(6);
    expect(feed.rejectedByFamily['price:token']).toEqual({ count: 5, sample: 'price: expected a number' });
    expect(feed.rejectedByFamily['(malformed)']?.count).toBe(1);
    expect(lines.filter((l) => l.includes('rejected a payload in price:token')).length).toBe(1);
    expect(handle.health().state).toBe('running');
    await handle.stop();
  });

  it('with feed.onLoss: halt stops every new intent on a disconnect; with continue it keeps trading', async () => {
    const clock = manualClock(1_000_000);
    const conn = fakeConnection();
    const halt = createDeployment(loadDeployment(deployment(['  onLoss: halt'])), { mode: 'paper', clock, connection: conn });
    await halt.start();
    conn.event({ kind: 'disconnected', at: clock.now(), reason: 'server-closed' });
    expect(halt.health().state).toBe('halted');
    conn.event({ kind: 'connected', at: clock.now(), rooms: 1 });
    expect(halt.health().state).toBe('halted');
    await halt.stop();

    const conn2 = fakeConnection();
    tmp?.remove();
    tmp = undefined;
    const cont = createDeployment(loadDeployment(deployment(['  onLoss: continue'])), { mode: 'paper', clock, connection: conn2 });
    const alerts: string[] = [];
    cont.events.on((e) => void (e.type === 'alert' && alerts.push(e.code)));
    await cont.start();
    conn2.event({ kind: 'disconnected', at: clock.now(), reason: 'server-closed' });
    expect(cont.health().state).toBe('running');
    expect(alerts).toContain('RUNTIME_FEED_LOST');
    await cont.stop();
  });

  it('pauses entries when the simulator drops the socket and resumes after the reconnect, with gap times on the simulator clock', async () => {
    const clock = manualClock(Date.UTC(2026, 0, 1));
    const key = 'feed-test-key';
    sim = await startSimulator({ seed: 4, clock, apiKey: key, faults: { stream: { dropSocketPerSecond: 0.05 } } });
    tmp = tempDir('cp-feed-');
    const file = tmp.write(
      'remote.yaml',
      [
        'version: 1',
        'name: drop-test',
        'endpoints:',
        '  remote:',
        `    baseUrl: ${sim.urls.base}`,
        `    datastreamUrl: ${sim.urls.datastream}`,
        `    apiKey: ${key}`,
        'strategies:',
        `  - use: ${process.cwd()}/test/runtime/fixtures/probe-strategy.ts`,
        'telemetry:',
        '  logLevel: warn',
        '',
      ].join('\n'),
    );
    const { log, lines } = captureLog('warn');
    const handle = createDeployment(loadDeployment(file), { mode: 'paper', clock, log, datastream: { backoffBaseMs: 200, backoffCapMs: 1_000 } });
    const states: string[] = [];
    handle.events.on((e) => void (e.type === 'state' && states.push(`${e.state}${e.cause ? `:${e.cause.code}` : ''}`)));
    await handle.start();
    ticker = setInterval(() => clock.advance(250), 5);
    await until(() => lines.some((l) => l.includes('gap seen')), 'a gap after a dropped socket', 25_000);
    await until(() => handle.health().state === 'running', 'running again');
    clearInterval(ticker);
    ticker = undefined;
    expect(states).toContain('paused:RUNTIME_FEED_LOST');
    expect(states.lastIndexOf('running')).toBeGreaterThan(states.indexOf('paused:RUNTIME_FEED_LOST'));
    const gap = JSON.parse(lines.find((l) => l.includes('gap seen'))!) as { gapStartedAt: number; gapEndedAt: number };
    expect(gap.gapStartedAt).toBeGreaterThanOrEqual(Date.UTC(2026, 0, 1));
    expect(gap.gapEndedAt).toBeGreaterThanOrEqual(gap.gapStartedAt);
    expect(gap.gapEndedAt).toBeLessThanOrEqual(clock.now());
    expect(handle.health().feed.gaps).toBeGreaterThan(0);
    await handle.stop();
  }, 40_000);

  it('ends a paper run whose key is refused with the cause and exit status 1, well before its duration', async () => {
    sim = await startSimulator({ seed: 2, speed: 'max', apiKey: 'the-right-key' });
    tmp = tempDir('cp-feed-');
    const file = tmp.write(
      'refused.yaml',
      [
        'version: 1',
        'name: refused',
        'endpoints:',
        '  remote:',
        `    baseUrl: ${sim.urls.base}`,
        `    datastreamUrl: ${sim.urls.datastream}`,
        '    apiKey: a-wrong-key',
        'strategies:',
        '  - use: graduation-sniper',
        'telemetry:',
        '  logLevel: silent',
        '',
      ].join('\n'),
    );
    const printed: string[] = [];
    const started = Date.now();
    const r = await runPaper({ file, durationMs: 60_000, out: (t) => printed.push(t), signals: false });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.exitCode).toBe(1);
    expect(r.problem).toMatch(/^RUNTIME_FEED_LOST: /);
    expect(printed.join('')).toContain('RUNTIME_FEED_LOST');
    expect(printed.join('')).not.toContain('a-wrong-key');
  }, 40_000);
});
