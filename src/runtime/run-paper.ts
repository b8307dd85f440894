/**
 * `chainpilot paper FILE`: runs a deployment in paper mode. With simulator endpoints (the default)
 * it starts the embedded simulator in process and trades on its Datastream; with remote endpoints
 * it trades on the real service's live feed. Shows a status panel, stops on Ctrl-C, a duration or
 * an abort signal, and returns the run summary.
 */
import { randomBytes } from 'node:crypto';
import type { DatastreamClient } from '../client/datastream/index.js';
import { seededRandom, systemClock, type Clock } from '../core/index.js';
import type { RunSummary } from '../engine/engine-stats.js';
import { startSimulator, type RunningSimulator } from '../sim/start-simulator.js';
import { createPaperSession } from './paper-session.js';
import type { RestPorts } from './rest-ports.js';
import { resolveStrategies } from './resolve-strategies.js';
import { connectFeed, openRun, waitForStop, type RunBaseOptions } from './run-common.js';
import { createStatusPanel, formatSummary } from './status-panel.js';
import type { Recorder } from './record/recorder.js';
import { openRunRecorder } from './record/run-recorder.js';

export interface RunPaperOptions extends RunBaseOptions {
  /** Overrides `endpoints.simulator.speed`. */
  readonly speed?: number | 'max';
  /** Seed of the engine's ids and of the simulator (overrides `endpoints.simulator.seed`). */
  readonly seed?: number;
}

export async function runPaper(o: RunPaperOptions): Promise<RunSummary> {
  const { loaded, deployment: d, redactor, log, out } = openRun(o);
  const strategies = await resolveStrategies(loaded);
  const seed = o.seed ?? d.endpoints.simulator?.seed ?? 1;

  let sim: RunningSimulator | undefined;
  let clock: Clock = systemClock();
  let feed: DatastreamClient;
  let rest: RestPorts;
  let rec: Recorder | undefined;
  if (d.endpoints.remote) {
    const recorder = openRunRecorder(d, { clock, redactor, log, seed, simulator: false });
    ({ feed, rest } = connectFeed({ baseUrl: d.endpoints.remote.baseUrl, datastreamUrl: d.endpoints.remote.datastreamUrl, apiKey: d.endpoints.remote.apiKey, redactor, seed, ...(recorder ? { onRawFrame: recorder.onRawFrame } : {}) }));
    rec = recorder;
  } else {
    const apiKey = randomBytes(16).toString('hex');
    redactor.add(apiKey);
    sim = await startSimulator({ seed, speed: o.speed ?? d.endpoints.simulator?.speed ?? 60, apiKey, log: log.child({ part: 'sim' }) });
    clock = sim.clock;
    const recorder = openRunRecorder(d, { clock, redactor, log, seed, simulator: true });
    ({ feed, rest } = connectFeed({ baseUrl: sim.urls.base, datastreamUrl: sim.urls.datastream, apiKey, redactor, seed, ...(recorder ? { onRawFrame: recorder.onRawFrame } : {}) }));
    rec = recorder;
  }
  rec?.watch(feed);

  const session = createPaperSession({ deployment: d, strategies, feed, clock, random: seededRandom(seed), log: log.child({ part: 'engine' }), data: rec ? rec.data(rest.data) : rest.data });
  const panel = createStatusPanel(session.engine, () => Date.now(), feed);
  try {
    rec?.start();
    await session.start();
    const speed = o.speed ?? d.endpoints.simulator?.speed ?? 60;
    out(`chainpilot paper: ${d.name} with ${strategies.map((s) => s.id).join(', ')} on ${sim ? `the embedded simulator (seed ${seed}, ${speed === 'max' ? 'max speed' : `${speed}x real time`})` : 'the remote service'}${o.durationMs ? ` for ${o.durationMs / 1000}s` : ''}; Ctrl-C stops\n`);
    await waitForStop({ ...(o.durationMs !== undefined ? { durationMs: o.durationMs } : {}), ...(o.signal ? { signal: o.signal } : {}), tickMs: d.telemetry.statusInterval, tick: () => out(`${panel.render()}\n`) });
  } finally {
    rec?.end();
    await session.stop(AbortSignal.timeout(5_000));
    await rec?.close();
    feed.close();
    await rest.close();
    await sim?.stop();
  }
  const summary = session.engine.stats.summary();
  out(`${redactor.redact(formatSummary(summary))}\n`);
  return summary;
}
