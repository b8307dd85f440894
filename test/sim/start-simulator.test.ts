import { describe, expect, it } from 'vitest';
import type { SimServiceContext } from '../../src/sim/market-port.js';
import { startSimulator } from '../../src/sim/start-simulator.js';
import { connect, get, KEY, T0, waitFor } from './sim-helpers.js';

describe('startSimulator', () => {
  it('runs as fast as possible, starts services after REST and stops them first, then closes every socket', async () => {
    const events: string[] = [];
    let ctx: SimServiceContext | undefined;
    let base = '';
    const sim = await startSimulator({
      seed: 3,
      speed: 'max',
      startAt: T0,
      apiKey: KEY,
      services: [
        async (c) => {
          ctx = c;
          events.push('service started');
          return {
            urls: { rpc: `http://${c.host}:1/` },
            async stop() {
              // REST must still answer while services stop.
              events.push(`service stopping, REST ${(await get(`${base}/tokens/latest`)).status}`);
            },
          };
        },
      ],
    });
    base = sim.urls.base;
    expect(sim.urls).toMatchObject({
      base: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      prediction: `${base}/prediction`,
      datastream: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/datastream$/),
      rpc: 'http://127.0.0.1:1/',
    });
    expect(ctx?.apiKey).toBe(KEY);
    expect(ctx?.market).toBe(sim.market);
    const c = await connect({ sim });
    await c.join('latest');
    await waitFor(() => sim.clock.now() - T0 > 10 * 60_000, 20_000);
    expect([...sim.market.tokens()].length).toBeGreaterThan(10);
    const closed = new Promise<void>((resolve) => c.ws.once('close', () => resolve()));
    await sim.stop();
    await closed;
    expect(events).toEqual(['service started', 'service stopping, REST 200']);
    await expect(fetch(`${base}/tokens/latest`)).rejects.toThrow();
    // at 'max' speed the driver advances the clock once per event-loop turn (setImmediate): after
    // twenty turns a driver that still ran would have moved it
    const at = sim.clock.now();
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(sim.clock.now()).toBe(at);
  });

  it('follows real time scaled by speed', async () => {
    const sim = await startSimulator({ speed: 100, startAt: T0, apiKey: KEY });
    await waitFor(() => sim.clock.now() - T0 >= 5_000, 5_000);
    await sim.stop();
    expect(sim.clock.now() - T0).toBeLessThan(60_000);
  });

  it('rejects a bad speed, an unknown fault profile and unknown market settings with coded errors', async () => {
    await expect(startSimulator({ speed: 0 })).rejects.toMatchObject({ code: 'SIM_INVALID_SETTINGS' });
    for (const speed of [1e300, 1e-300, Number.NaN, Infinity]) await expect(startSimulator({ speed })).rejects.toMatchObject({ code: 'SIM_INVALID_SETTINGS' });
    await expect(startSimulator({ faults: 'apocalypse' })).rejects.toMatchObject({ code: 'SIM_UNKNOWN_FAULT_PROFILE' });
    await expect(startSimulator({ market: { launchesPerHour: -1 } })).rejects.toMatchObject({
      code: 'SIM_INVALID_SETTINGS',
      message: expect.stringContaining('launchesPerHour'),
    });
    await expect(startSimulator({ market: { bogus: 1 } as never })).rejects.toMatchObject({ code: 'SIM_INVALID_SETTINGS' });
  });

  it('reports a port in use as SIM_LISTEN_FAILED', async () => {
    const a = await startSimulator({ startAt: T0, apiKey: KEY });
    const port = Number(new URL(a.urls.base).port);
    await expect(startSimulator({ port, startAt: T0 })).rejects.toMatchObject({ code: 'SIM_LISTEN_FAILED' });
    await a.stop();
  });
});
