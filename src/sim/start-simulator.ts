/**
 * Starts the embedded simulator: the seeded market model, REST (token data and prediction APIs) and
 * the Datastream on one HTTP port, then each additional service (ledger, RPC, swap) from
 * `options.services`. The running simulator is a {@link Lifecycle} built running (`start` resolves at
 * once); `stop()` closes services first, then every socket and timer.
 */
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import {
  ChainpilotError,
  createLifecycle,
  lifecycleMembers,
  seededRandom,
  silentLogger,
  systemClock,
  type Clock,
  type Lifecycle,
  type Logger,
  type ManualClock,
  type UnixMs,
} from '../core/index.js';
import { resolveFaults, type FaultSettings } from './faults/fault-settings.js';
import type { SimMarketPort, SimService, SimServiceFactory } from './market-port.js';
import { createMarketModel, type MarketModel } from './model/market-model.js';
import { createBaseRoutes } from './rest/base-routes.js';
import { createHttpApp, DATASTREAM_PREFIX, PREDICTION_PREFIX } from './rest/http-app.js';
import { createPredictionRoutes } from './rest/prediction-routes.js';
import { createSimDriver } from './sim-driver.js';
import { parseMarketSettings, type MarketSettings } from './sim-settings.js';
import { createDatastreamHub, type HubStats } from './stream/datastream-hub.js';
import { createRoomRouter } from './stream/room-router.js';

export interface StartSimulatorOptions {
  /** Seed of the market, the faults and the services (default 1). */
  readonly seed?: number | string;
  /** Multiple of real time, or `'max'` for as fast as possible (default 1). Ignored with `clock`. */
  readonly speed?: number | 'max';
  readonly host?: string;
  /** Port of the HTTP + WebSocket server (default 0: an ephemeral port). */
  readonly port?: number;
  /** Key clients must present (default: 32 random hex characters). */
  readonly apiKey?: string;
  /** A profile name (`none`, `flaky`, `chaos`) or settings. */
  readonly faults?: string | FaultSettings;
  readonly services?: readonly SimServiceFactory[];
  /** Simulated start time (default: now, rounded down to the second). */
  readonly startAt?: UnixMs;
  /** A manual clock the caller advances (tests): the simulator never moves time itself. */
  readonly clock?: ManualClock;
  /** Market knobs (see MarketSettings). */
  readonly market?: Partial<MarketSettings>;
  /** Real milliseconds between Datastream pings; a client silent for a whole interval is dropped (default 30 000). */
  readonly pingIntervalMs?: number;
  /** A Datastream client with more unsent bytes than this is dropped (default 16 MiB). */
  readonly maxBufferedBytes?: number;
  readonly log?: Logger;
}

export interface RunningSimulator extends Lifecycle {
  /** `base` and `prediction` are HTTP roots; `datastream` is the WebSocket root to which `/<API_KEY>` is appended. */
  readonly urls: { base: string; prediction: string; datastream: string } & Record<string, string>;
  readonly apiKey: string;
  readonly market: SimMarketPort;
  readonly clock: Clock;
  /** Datastream counters (frames sent, clients, ...). */
  stats(): HubStats;
  /** The model itself, for in-process tools (benchmarks, tests). */
  readonly model: MarketModel;
}

export async function startSimulator(options: StartSimulatorOptions = {}): Promise<RunningSimulator> {
  const seed = options.seed ?? 1;
  const speed = options.speed ?? 1;
  // the same range as endpoints.simulator.speed and --speed (src/config/limits.ts): slower freezes the
  // market, faster cannot be kept up with in real time (use 'max')
  if (speed !== 'max' && !(typeof speed === 'number' && speed >= 0.01 && speed <= 1_000)) {
    throw new ChainpilotError('SIM_INVALID_SETTINGS', `speed: got ${String(speed)}; use a multiple of real time from 0.01 to 1000, or 'max'`, {
      retry: 'not_retryable',
      context: { field: 'speed' },
    });
  }
  const settings = parseMarketSettings(options.market ?? {});
  const faults = resolveFaults(options.faults);
  const log = options.log ?? silentLogger();
  const host = options.host ?? '127.0.0.1';
  const apiKey = options.apiKey ?? randomBytes(16).toString('hex');
  const root = seededRandom(seed);
  const marketRandom = root.fork('market');
  const restFaults = root.fork('faults-rest');
  const streamFaults = root.fork('faults-stream');
  const startAt = options.startAt ?? ((Math.floor(Date.now() / 1000) * 1000) as UnixMs);
  const driver = createSimDriver({ speed, startAt, ...(options.clock ? { clock: options.clock } : {}) });
  const clock = driver.clock;
  const model = createMarketModel({ settings, clock, random: marketRandom });
  model.faults.liquidityForkShare = faults.liquidityForkShare;
  const hub = createDatastreamHub({
    pingIntervalMs: options.pingIntervalMs ?? 30_000,
    maxRoomsPerClient: 1000,
    maxBufferedBytes: options.maxBufferedBytes ?? 16 * 1024 * 1024,
  });
  const router = createRoomRouter(model.state, hub);
  const unlisten = model.onEvent((e) => router.route(e));
  const app = createHttpApp({
    state: model.state,
    apiKey,
    base: createBaseRoutes(),
    prediction: createPredictionRoutes(),
    hub,
    faults,
    faultRandom: restFaults,
    log,
  });
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => app.onRequest(req, res));
  server.on('upgrade', (req, socket, head) => app.onUpgrade(req, socket, head));
  let address: AddressInfo;
  try {
    address = await listen(server, host, options.port ?? 0);
  } catch (e) {
    unlisten();
    await hub.close();
    throw e;
  }
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const origin = `${hostForUrl}:${address.port}`;

  let faultTimer: ReturnType<Clock['setTimeout']> | undefined;
  const stream = faults.stream;
  const streamFaultsOn = stream.dropSocketPerSecond + stream.silenceSocketPerSecond + stream.malformedFramePerSecond > 0;
  const faultTick = (): void => {
    hub.injectFaults(streamFaults, stream);
    faultTimer = clock.setTimeout(faultTick, 1000);
  };

  const services: SimService[] = [];
  const stopAll = async (): Promise<void> => {
    driver.stop();
    for (const s of [...services].reverse()) await s.stop();
    services.length = 0;
    model.stop();
    if (faultTimer) clock.clearTimeout(faultTimer);
    unlisten();
    await hub.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  };
  const urls: Record<string, string> = {
    base: `http://${origin}`,
    prediction: `http://${origin}${PREDICTION_PREFIX}`,
    datastream: `ws://${origin}${DATASTREAM_PREFIX}`,
  };
  try {
    for (const [i, factory] of (options.services ?? []).entries()) {
      const s = await factory({ market: model, clock, random: root.fork(`service-${i}`), apiKey, host, log });
      services.push(s);
      Object.assign(urls, s.urls);
    }
  } catch (e) {
    await stopAll();
    throw e;
  }
  model.start();
  if (streamFaultsOn) faultTimer = clock.setTimeout(faultTick, 1000);
  driver.start();
  // nothing to drain: a stop closes at once
  const life = createLifecycle(
    { name: 'simulator', halt: stopAll, report: () => undefined },
    { log: log, clock, haltClock: systemClock(), defaultDrainMs: 0, running: true },
  );
  return {
    urls: urls as RunningSimulator['urls'],
    apiKey,
    market: model,
    clock,
    model,
    stats: () => hub.stats(),
    ...lifecycleMembers(life),
  };
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error): void =>
      reject(
        new ChainpilotError('SIM_LISTEN_FAILED', `simulator: cannot listen on ${host}:${port} (${e.message}); pick a free port or port 0`, {
          retry: 'not_retryable',
          context: { host, port },
          cause: e,
        }),
      );
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}
