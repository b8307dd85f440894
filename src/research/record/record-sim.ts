/**
 * Records the embedded simulator at full speed on its manual clock: the simulator, a real
 * Datastream client over a WebSocket on 127.0.0.1, and (with a deployment) the deployment's paper
 * session, advanced one simulated step at a time; after each step the run waits until the client
 * has received every frame the simulator sent and the simulator has applied every join and leave.
 * The same seed, start and duration give the same recording, byte for byte.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createDatastreamClient } from '../../client/datastream/index.js';
import { manualClock, seededRandom, silentLogger, type Logger, type Redactor, type UnixMs } from '../../core/index.js';
import type { LoadedDeployment } from '../../config/index.js';
import type { DecisionSink } from '../../engine/logs/decision-log.js';
import type { RunSummary } from '../../engine/logs/engine-stats.js';
import { startSimulator } from '../../sim/start-simulator.js';
import { createPaperSession } from '../../runtime/paper/paper-session.js';
import { createRestPorts } from '../../runtime/compose/rest-ports.js';
import { resolveStrategies } from '../../runtime/compose/resolve-strategies.js';
import { EMBEDDED_LIVENESS_MS } from '../../runtime/compose/run-endpoint.js';
import { createRecorder } from './recorder.js';

/** 2026-01-01T00:00:00Z: the default start of simulator recordings (a fixed time keeps them reproducible). */
export const DEFAULT_SIM_START = 1_767_225_600_000;

/** Lines reach the writer (and gzip) in batches of this many bytes: far less CPU than a write per simulated second. */
const BATCH_BYTES = 64 * 1024;

/** The longest timer Node keeps (about 24.8 days of wall time): the hub's pings never fire during a recording. */
const NO_PINGS_MS = 2_147_483_647;

export interface RecordSimOptions {
  readonly seed: number;
  readonly durationMs: number;
  readonly startAt?: number;
  /** Simulated milliseconds per step (default 1000). */
  readonly stepMs?: number;
  /** Run this deployment's strategies in a paper session while recording (their rooms, watches and look-ups are recorded). */
  readonly loaded?: LoadedDeployment;
  /** Rooms to record without strategies. */
  readonly rooms?: readonly string[];
  readonly dir: string;
  readonly gzip?: boolean;
  readonly rotateBytes?: number;
  readonly rotateMs?: number;
  readonly redactor: Redactor;
  readonly log?: Logger;
  readonly decisions?: DecisionSink;
  readonly onProgress?: (simulatedMs: number, frames: number) => void;
  readonly signal?: AbortSignal;
}

export interface RecordSimResult {
  readonly files: readonly string[];
  readonly lines: number;
  readonly bytes: number;
  readonly summary: RunSummary | undefined;
  /** The decision log of the deployment's strategies (`PREFIX.decisions.jsonl` beside the recording); absent with `rooms`. */
  readonly decisions: string | undefined;
}

/** Spins the event loop (sockets are polled on every turn) until `ready`, for at most 5 s of wall time; false on the timeout. */
async function settle(ready: () => boolean): Promise<boolean> {
  const until = performance.now() + 5_000;
  let ok = ready();
  while (!ok && performance.now() < until) {
    await new Promise((r) => setImmediate(r));
    ok = ready();
  }
  await new Promise((r) => setImmediate(r));
  return ok;
}

export async function recordSimulator(o: RecordSimOptions): Promise<RecordSimResult> {
  const startAt = (o.startAt ?? DEFAULT_SIM_START) as UnixMs;
  const log = o.log ?? silentLogger();
  const apiKey = randomBytes(16).toString('hex');
  o.redactor.add(apiKey);
  const clock = manualClock(startAt);
  // No wall-time pings: they would land in the recording at a simulated time that depends on how
  // fast the machine is, and the same seed must give the same bytes (the client's liveness reads
  // the manual clock, and frames arrive every simulated second or so).
  const sim = await startSimulator({ seed: o.seed, clock, startAt, apiKey, services: [], pingIntervalMs: NO_PINGS_MS });
  const d = o.loaded?.deployment;
  const rooms = o.rooms ?? [];
  const recorder = createRecorder({
    dir: o.dir,
    source: d?.name ?? 'rooms',
    clock,
    clockKind: 'simulator',
    rooms,
    endpoints: { datastream: 'simulator', base: 'simulator' },
    redactor: o.redactor,
    log,
    seed: o.seed,
    batchBytes: BATCH_BYTES,
    ...(o.gzip !== undefined ? { gzip: o.gzip } : {}),
    ...(o.rotateBytes !== undefined ? { rotateBytes: o.rotateBytes } : {}),
    ...(o.rotateMs !== undefined ? { rotateMs: o.rotateMs } : {}),
  });
  const rest = createRestPorts({ baseUrl: sim.urls.base, apiKey, redactor: o.redactor });
  // The client's receive times come from the simulator's clock too: one clock for the whole run.
  // A loopback socket in process is never stale: the liveness of the embedded runs (a quiet minute
  // of simulated time, common late in a day, would otherwise recycle the socket and lose frames).
  const feed = createDatastreamClient({
    url: sim.urls.datastream,
    apiKey,
    clock,
    random: seededRandom(o.seed).fork('datastream'),
    onRawFrame: recorder.onRawFrame,
    livenessTimeoutMs: EMBEDDED_LIVENESS_MS,
  });
  recorder.watch(feed);
  const unsubs = rooms.map((r) => feed.subscribe(r, () => undefined));
  let session: ReturnType<typeof createPaperSession> | undefined;
  let decisions: string | undefined;
  if (o.loaded && d) {
    // The strategies' decisions go beside the recording, so that a backtest of it can be verified against them.
    decisions = `${recorder.prefix}.decisions.jsonl`;
    const deployment = { ...d, telemetry: { ...d.telemetry, decisionLog: decisions } };
    const strategies = await resolveStrategies({ ...o.loaded, deployment });
    session = createPaperSession({
      deployment,
      strategies,
      feed,
      clock,
      random: seededRandom(o.seed),
      seed: o.seed,
      log,
      data: recorder.data(rest.data),
      ...(o.decisions ? { decisions: o.decisions } : {}),
    });
  }
  const step = o.stepMs ?? 1_000;
  try {
    await feed.whenOpen();
    await recorder.start();
    await session?.start();
    // Joins the hub refused (ROOM_LIMIT: strategies that never leave a token's rooms reach the cap
    // after about 9 simulated hours of paper-sim.yaml) are read too: the client still holds them.
    // Frames sent to a socket that was dropped never arrive: a step that times out writes them off
    // (as the embedded runs' lockstep does), so that one lost frame does not slow every later step.
    let lost = 0;
    const quiet = (): boolean => {
      if (feed.state === 'connecting') return false;
      const hub = sim.stats();
      return hub.framesSent === feed.framesReceived() + lost && hub.rooms + hub.refusedRooms === feed.rooms().length;
    };
    const settleStep = async (): Promise<void> => {
      if (await settle(quiet)) return;
      lost = Math.max(lost, sim.stats().framesSent - feed.framesReceived());
      log.warn({ lost, rooms: feed.rooms().length, hubRooms: sim.stats().rooms }, 'record --sim: a step timed out waiting for the client');
    };
    await settleStep();
    for (let t = 0; t < o.durationMs && !o.signal?.aborted; t += step) {
      clock.advance(Math.min(step, o.durationMs - t));
      await settleStep();
      await recorder.writer.drained();
      o.onProgress?.(t + step, feed.framesReceived());
    }
    recorder.end();
    await session?.stop();
  } finally {
    for (const u of unsubs) u();
    feed.close();
    await recorder.stop();
    await rest.close();
    await sim.stop();
  }
  const st = recorder.writer.stats();
  return { files: recorder.writer.files(), lines: st.lines, bytes: st.bytes, summary: session?.engine.stats.summary(), decisions };
}
