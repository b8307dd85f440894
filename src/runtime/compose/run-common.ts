/**
 * What the paper and live composition roots share: loading the deployment with its secrets
 * registered in a redactor, the run's redacting logger, and the Datastream feed and REST ports for
 * an endpoint.
 */
import { destination, type DestinationStream } from 'pino';
import { createDatastreamClient, type DatastreamClient, type DatastreamKnobs } from '../../client/datastream/index.js';
import type { HttpTelemetry } from '../../client/http/index.js';
import { createLogger, createRedactor, longTimeout, seededRandom, type Clock, type Logger, type Redactor, type UnixMs } from '../../core/index.js';
import type { FeedConnection } from '../handle/deployment-handle.js';
import { loadDeployment, type Deployment, type LoadedDeployment, type SetOverride, type StrategyIds } from '../../config/index.js';
import { createRestPorts, type RestPorts } from './rest-ports.js';

export interface RunBaseOptions {
  readonly file: string;
  /** Stop after this much wall time (default: until aborted). */
  readonly durationMs?: number;
  readonly signal?: AbortSignal;
  /** Where the status panel and summary go (default stdout). */
  readonly out?: (text: string) => void;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `--set PATH=VALUE` overrides of the deployment file. */
  readonly set?: readonly SetOverride[];
  /** The strategies' own ids by position, when `set` picks a strategy by name (strategyIdsOf). */
  readonly strategyIds?: StrategyIds;
  /** Logger to use as is (default: pino through the run's redactor, pretty on a TTY). */
  readonly log?: Logger;
  /** Where the run's redacting logger writes (tests capture lines here). Ignored with `log`. */
  readonly logDestination?: DestinationStream;
}

export interface OpenedRun {
  readonly loaded: LoadedDeployment;
  readonly deployment: Deployment;
  readonly redactor: Redactor;
  readonly log: Logger;
  readonly out: (text: string) => void;
}

/** Loads and validates the deployment, registers its secrets, and creates the run's logger. */
export function openRun(o: RunBaseOptions): OpenedRun {
  const out = o.out ?? ((t: string) => void process.stdout.write(t));
  const redactor = createRedactor();
  const loaded = loadDeployment(o.file, {
    ...(o.env ? { env: o.env } : {}),
    ...(o.set ? { set: o.set } : {}),
    ...(o.strategyIds ? { strategyIds: o.strategyIds } : {}),
  });
  for (const s of loaded.secrets) redactor.add(s);
  const d = loaded.deployment;
  const log =
    o.log ??
    createLogger({
      redactor,
      level: d.telemetry.logLevel,
      name: d.name,
      ...(o.logDestination
        ? { destination: o.logDestination }
        : process.stderr.isTTY
          ? { pretty: true }
          : { destination: destination({ fd: 2, sync: false }) }),
    });
  return { loaded, deployment: d, redactor, log, out };
}

/** The Datastream client and REST ports of one endpoint, as the handle's feed connection. */
export interface OwnedConnection extends FeedConnection {
  readonly client: DatastreamClient;
  readonly rest: RestPorts;
}

/**
 * The Datastream client and REST ports of one endpoint (remote service or embedded simulator), on
 * the run clock: reconnect backoff, liveness, `receivedAt`, gap times and REST retry waits all read
 * `clock`. `release()` closes both. `telemetry` observes the REST requests and retries (daemon metrics).
 */
export function connectFeed(o: {
  readonly baseUrl: string;
  readonly datastreamUrl: string;
  readonly apiKey: string;
  readonly redactor: Redactor;
  readonly seed: number;
  readonly clock: Clock;
  readonly knobs?: DatastreamKnobs;
  readonly onRawFrame?: (text: string, receivedAt: UnixMs) => void;
  readonly telemetry?: HttpTelemetry;
  /** Real ms per event-loop turn of handing frames over (the client's `sliceMs`; default: reads in full). */
  readonly sliceMs?: number;
  /** With `sliceMs`: whether a frame's delivery may pause between subscribers (the client's `deliveriesMayPause`). */
  readonly deliveriesMayPause?: () => boolean;
}): OwnedConnection {
  const random = seededRandom(o.seed);
  const rest = createRestPorts({
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    redactor: o.redactor,
    clock: o.clock,
    random: random.fork('rest'),
    ...(o.telemetry ? { telemetry: o.telemetry } : {}),
  });
  const client = createDatastreamClient({
    url: o.datastreamUrl,
    apiKey: o.apiKey,
    clock: o.clock,
    random: random.fork('datastream'),
    backfill: rest.backfill,
    ...o.knobs,
    ...(o.onRawFrame ? { onRawFrame: o.onRawFrame } : {}),
    ...(o.sliceMs !== undefined ? { sliceMs: o.sliceMs } : {}),
    ...(o.deliveriesMayPause ? { deliveriesMayPause: o.deliveriesMayPause } : {}),
  });
  let released = false;
  return {
    client,
    rest,
    feed: client,
    data: rest.data,
    watch: {
      onEvent: (h) => client.onEvent(h),
      get state() {
        return client.state;
      },
      stats: () => client.stats(),
      framesReceived: () => client.framesReceived(),
    },
    async release() {
      if (released) return;
      released = true;
      client.close();
      await rest.close();
    },
  };
}

/**
 * Resolves when SIGINT arrives, `signal` aborts or `durationMs` passes; calls `tick` every
 * `tickMs` meanwhile (`chainpilot record`). Removes its listeners and timers before resolving.
 */
export async function waitForStop(o: {
  readonly durationMs?: number;
  readonly signal?: AbortSignal;
  readonly tickMs: number;
  readonly tick: () => void;
}): Promise<void> {
  const stopped = new AbortController();
  const stop = (): void => stopped.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  o.signal?.addEventListener('abort', stop, { once: true });
  if (o.signal?.aborted) stop();
  // tickMs is bounded well below MAX_TIMER_MS by its callers; the duration is not
  const interval = setInterval(o.tick, o.tickMs);
  const cancelDuration = o.durationMs !== undefined ? longTimeout(stop, o.durationMs) : undefined;
  try {
    await new Promise<void>((resolve) => {
      if (stopped.signal.aborted) resolve();
      stopped.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    clearInterval(interval);
    cancelDuration?.();
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
    o.signal?.removeEventListener('abort', stop);
  }
}
