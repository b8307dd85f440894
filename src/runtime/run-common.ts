/**
 * What the paper and live composition roots share: loading the deployment with its secrets
 * registered in a redactor, the run's redacting logger, the Datastream feed and REST ports for an
 * endpoint, and waiting until Ctrl-C, a duration or an abort signal stops the run.
 */
import { destination, type DestinationStream } from 'pino';
import { createDatastreamClient, type DatastreamClient, type DatastreamClientOptions } from '../client/datastream/index.js';
import { createLogger, createRedactor, longTimeout, seededRandom, type Logger, type Redactor } from '../core/index.js';
import { loadDeployment, type Deployment, type LoadedDeployment } from '../config/index.js';
import { createRestPorts, type RestPorts } from './rest-ports.js';

export interface RunBaseOptions {
  readonly file: string;
  /** Stop after this much wall time (default: until aborted). */
  readonly durationMs?: number;
  readonly signal?: AbortSignal;
  /** Where the status panel and summary go (default stdout). */
  readonly out?: (text: string) => void;
  readonly env?: Readonly<Record<string, string | undefined>>;
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
  const loaded = loadDeployment(o.file, o.env ? { env: o.env } : {});
  for (const s of loaded.secrets) redactor.add(s);
  const d = loaded.deployment;
  const log = o.log ?? createLogger({ redactor, level: d.telemetry.logLevel, name: d.name, ...(o.logDestination ? { destination: o.logDestination } : process.stderr.isTTY ? { pretty: true } : { destination: destination({ fd: 2, sync: false }) }) });
  return { loaded, deployment: d, redactor, log, out };
}

/** The Datastream client and REST ports of one endpoint (remote service or embedded simulator). */
export function connectFeed(o: { readonly baseUrl: string; readonly datastreamUrl: string; readonly apiKey: string; readonly redactor: Redactor; readonly seed: number; readonly onRawFrame?: DatastreamClientOptions['onRawFrame'] }): { feed: DatastreamClient; rest: RestPorts } {
  const rest = createRestPorts({ baseUrl: o.baseUrl, apiKey: o.apiKey, redactor: o.redactor });
  const feed = createDatastreamClient({ url: o.datastreamUrl, apiKey: o.apiKey, random: seededRandom(o.seed).fork('datastream'), backfill: rest.backfill, ...(o.onRawFrame ? { onRawFrame: o.onRawFrame } : {}) });
  return { feed, rest };
}

/**
 * Resolves when SIGINT arrives, `signal` aborts or `durationMs` passes; calls `tick` every
 * `tickMs` meanwhile. Removes its listeners and timers before resolving.
 */
export async function waitForStop(o: { readonly durationMs?: number; readonly signal?: AbortSignal; readonly tickMs: number; readonly tick: () => void }): Promise<void> {
  const stopped = new AbortController();
  const stop = (): void => stopped.abort();
  process.once('SIGINT', stop);
  o.signal?.addEventListener('abort', stop, { once: true });
  if (o.signal?.aborted) stop();
  // telemetry.statusInterval is bounded well below MAX_TIMER_MS by the schema; the duration is not
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
    o.signal?.removeEventListener('abort', stop);
  }
}
