/**
 * `chainpilot paper FILE`: runs a deployment in paper mode. With simulator endpoints (the default)
 * it starts the embedded simulator in process and trades on its Datastream; with remote endpoints
 * it trades on the real service's live feed. Shows a status panel, stops on Ctrl-C, a duration or
 * an abort signal, and returns the run summary.
 */
import { randomBytes } from 'node:crypto';
import { destination, type DestinationStream } from 'pino';
import { createDatastreamClient, type DatastreamClient } from '../client/datastream/index.js';
import { createLogger, createRedactor, seededRandom, systemClock, type Clock, type Logger } from '../core/index.js';
import { loadDeployment } from '../config/index.js';
import type { RunSummary } from '../engine/engine-stats.js';
import { startSimulator, type RunningSimulator } from '../sim/start-simulator.js';
import { createPaperSession } from './paper-session.js';
import { createRestPorts, type RestPorts } from './rest-ports.js';
import { resolveStrategies } from './resolve-strategies.js';
import { createStatusPanel, formatSummary } from './status-panel.js';

export interface RunPaperOptions {
  readonly file: string;
  /** Stop after this much wall time (default: until aborted). */
  readonly durationMs?: number;
  /** Overrides `endpoints.simulator.speed`. */
  readonly speed?: number | 'max';
  /** Seed of the engine's ids and of the simulator (overrides `endpoints.simulator.seed`). */
  readonly seed?: number;
  readonly signal?: AbortSignal;
  /** Where the status panel and summary go (default stdout). */
  readonly out?: (text: string) => void;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Logger to use as is (default: pino through the run's redactor, pretty on a TTY). */
  readonly log?: Logger;
  /** Where the run's redacting logger writes (tests capture lines here). Ignored with `log`. */
  readonly logDestination?: DestinationStream;
}

export async function runPaper(o: RunPaperOptions): Promise<RunSummary> {
  const out = o.out ?? ((t: string) => void process.stdout.write(t));
  const redactor = createRedactor();
  const loaded = loadDeployment(o.file, o.env ? { env: o.env } : {});
  for (const s of loaded.secrets) redactor.add(s);
  const d = loaded.deployment;
  const log = o.log ?? createLogger({ redactor, level: d.telemetry.logLevel, name: d.name, ...(o.logDestination ? { destination: o.logDestination } : process.stderr.isTTY ? { pretty: true } : { destination: destination({ fd: 2, sync: false }) }) });
  const strategies = await resolveStrategies(loaded);
  const seed = o.seed ?? d.endpoints.simulator?.seed ?? 1;

  let sim: RunningSimulator | undefined;
  let clock: Clock = systemClock();
  let feed: DatastreamClient;
  let rest: RestPorts;
  if (d.endpoints.remote) {
    rest = createRestPorts({ baseUrl: d.endpoints.remote.baseUrl, apiKey: d.endpoints.remote.apiKey, redactor });
    feed = createDatastreamClient({ url: d.endpoints.remote.datastreamUrl, apiKey: d.endpoints.remote.apiKey, random: seededRandom(seed).fork('datastream'), backfill: rest.backfill });
  } else {
    const apiKey = randomBytes(16).toString('hex');
    redactor.add(apiKey);
    sim = await startSimulator({ seed, speed: o.speed ?? d.endpoints.simulator?.speed ?? 60, apiKey, log: log.child({ part: 'sim' }) });
    clock = sim.clock;
    rest = createRestPorts({ baseUrl: sim.urls.base, apiKey, redactor });
    feed = createDatastreamClient({ url: sim.urls.datastream, apiKey, random: seededRandom(seed).fork('datastream'), backfill: rest.backfill });
  }

  const session = createPaperSession({ deployment: d, strategies, feed, clock, random: seededRandom(seed), log: log.child({ part: 'engine' }), data: rest.data });
  const panel = createStatusPanel(session.engine, () => Date.now());
  const stopped = new AbortController();
  const onSigint = (): void => stopped.abort();
  process.once('SIGINT', onSigint);
  const onAbort = (): void => stopped.abort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const timers: NodeJS.Timeout[] = [];
  try {
    await session.start();
    const speed = o.speed ?? d.endpoints.simulator?.speed ?? 60;
    out(`chainpilot paper: ${d.name} with ${strategies.map((s) => s.id).join(', ')} on ${sim ? `the embedded simulator (seed ${seed}, ${speed === 'max' ? 'max speed' : `${speed}x real time`})` : 'the remote service'}${o.durationMs ? ` for ${o.durationMs / 1000}s` : ''}; Ctrl-C stops\n`);
    timers.push(setInterval(() => out(`${panel.render()}\n`), d.telemetry.statusInterval));
    if (o.durationMs !== undefined) timers.push(setTimeout(() => stopped.abort(), o.durationMs));
    await new Promise<void>((resolve) => {
      if (stopped.signal.aborted) resolve();
      stopped.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    for (const t of timers) clearInterval(t);
    process.removeListener('SIGINT', onSigint);
    o.signal?.removeEventListener('abort', onAbort);
    await session.stop(AbortSignal.timeout(5_000));
    feed.close();
    await rest.close();
    await sim?.stop();
  }
  const summary = session.engine.stats.summary();
  out(`${redactor.redact(formatSummary(summary))}\n`);
  return summary;
}
