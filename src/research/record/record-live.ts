/**
 * `chainpilot record DEPLOYMENT` on the deployment's endpoints in real time (the remote service, or
 * the embedded simulator at its configured speed): the deployment's strategies run in a paper
 * session so that every room they join (declared, watched at run time, position prices) and every
 * look-up they make is recorded; with `rooms`, those rooms are recorded and no strategy runs.
 * Stops on Ctrl-C, a duration or the signal.
 */
import { randomBytes } from 'node:crypto';
import { seededRandom, systemClock, type Clock } from '../../core/index.js';
import { startSimulator, type RunningSimulator } from '../../sim/start-simulator.js';
import { createPaperSession, type PaperSession } from '../../runtime/paper/paper-session.js';
import { resolveStrategies } from '../../runtime/compose/resolve-strategies.js';
import { connectFeed, openRun, waitForStop, type RunBaseOptions } from '../../runtime/compose/run-common.js';
import { createRecorder, endpointNames } from './recorder.js';

export interface RecordLiveOptions extends RunBaseOptions {
  readonly rooms?: readonly string[];
  readonly dir: string;
  readonly gzip?: boolean;
  readonly rotateBytes?: number;
  readonly rotateMs?: number;
  readonly seed?: number;
}

/** The recording's files and line count, and the decision log of the strategies it ran (absent with `rooms`). */
export async function recordLive(o: RecordLiveOptions): Promise<{ files: readonly string[]; lines: number; decisions: string | undefined }> {
  const { loaded, deployment: d, redactor, log, out } = openRun(o);
  const seed = o.seed ?? d.endpoints.simulator?.seed ?? 1;
  let sim: RunningSimulator | undefined;
  let clock: Clock = systemClock();
  let urls: { base: string; datastream: string };
  let apiKey: string;
  if (d.endpoints.remote) {
    urls = { base: d.endpoints.remote.baseUrl, datastream: d.endpoints.remote.datastreamUrl };
    apiKey = d.endpoints.remote.apiKey;
  } else {
    apiKey = randomBytes(16).toString('hex');
    redactor.add(apiKey);
    sim = await startSimulator({ seed, speed: d.endpoints.simulator?.speed ?? 60, apiKey, services: [], log: log.child({ part: 'sim' }) });
    clock = sim.clock;
    urls = sim.urls;
  }
  const rooms = o.rooms ?? [];
  const recorder = createRecorder({
    dir: o.dir,
    source: rooms.length ? 'rooms' : d.name,
    clock,
    clockKind: sim ? 'simulator' : 'wall',
    rooms,
    endpoints: sim ? { datastream: 'simulator', base: 'simulator' } : endpointNames(urls),
    redactor,
    log: log.child({ part: 'recorder' }),
    seed,
    ...(o.gzip !== undefined ? { gzip: o.gzip } : {}),
    ...(o.rotateBytes !== undefined ? { rotateBytes: o.rotateBytes } : {}),
    ...(o.rotateMs !== undefined ? { rotateMs: o.rotateMs } : {}),
  });
  const conn = connectFeed({ baseUrl: urls.base, datastreamUrl: urls.datastream, apiKey, redactor, seed, clock, onRawFrame: recorder.onRawFrame });
  const feed = conn.client;
  const rest = conn.rest;
  recorder.watch(feed);
  let session: PaperSession | undefined;
  let decisions: string | undefined;
  const unsubs: (() => void)[] = [];
  try {
    if (rooms.length > 0) for (const r of rooms) unsubs.push(feed.subscribe(r, () => undefined));
    else {
      // The strategies' decisions go beside the recording, so that a backtest of it can be verified against them.
      decisions = `${recorder.prefix}.decisions.jsonl`;
      const deployment = { ...d, telemetry: { ...d.telemetry, decisionLog: decisions } };
      const strategies = await resolveStrategies({ ...loaded, deployment });
      session = createPaperSession({
        deployment,
        strategies,
        feed,
        clock,
        random: seededRandom(seed),
        seed,
        log: log.child({ part: 'engine' }),
        data: recorder.data(rest.data),
      });
    }
    await recorder.start();
    await session?.start();
    out(
      `chainpilot record: ${rooms.length ? `${rooms.length} rooms` : `the rooms of ${d.name}'s strategies`} on ${sim ? 'the embedded simulator' : 'the remote service'} into ${o.dir}; Ctrl-C stops\n`,
    );
    await waitForStop({
      ...(o.durationMs !== undefined ? { durationMs: o.durationMs } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      tickMs: 5_000,
      tick: () => out(`recorded ${recorder.writer.stats().lines} lines\n`),
    });
  } finally {
    recorder.end();
    await session?.stop(AbortSignal.timeout(5_000));
    for (const u of unsubs) u();
    await recorder.stop();
    await conn.release();
    await sim?.stop();
  }
  const st = recorder.writer.stats();
  return { files: recorder.writer.files(), lines: st.lines, decisions };
}
