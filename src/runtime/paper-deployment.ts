/**
 * Composition root of paper trading (and backtests): the deployment's engine with the paper
 * executor, on the injected connection and clock (backtest: a replay feed and a manual clock), or
 * else on the embedded simulator (its clock is the run's) or the remote service (system clock).
 */
import { seededRandom, systemClock, type Clock } from '../core/index.js';
import { createPaperExecutor } from '../executors/paper/paper-executor.js';
import type { Assembly, AssemblyContext } from './assembly.js';
import { createDeploymentEngine } from './deployment-engine.js';
import type { FeedConnection } from './deployment-handle.js';
import { startEmbeddedSim, type EmbeddedSim, type LockstepIdle } from './embedded-sim.js';
import { resolveStrategies } from './resolve-strategies.js';
import { openRunRecorder, recordShare } from './record/run-recorder.js';
import { connectFeed, type OwnedConnection } from './run-common.js';

/** Liveness of the Datastream client on the embedded simulator: a loopback socket in process, on simulated time. */
export const EMBEDDED_LIVENESS_MS = 24 * 3_600_000;

/** The feed connection and clock of a run: injected, the embedded simulator, or the remote service. */
export async function openEndpoint(c: AssemblyContext, services?: Parameters<typeof startEmbeddedSim>[0]['services']): Promise<{ clock: Clock; connection: FeedConnection; owned?: OwnedConnection; sim?: EmbeddedSim }> {
  const d = c.deployment;
  const injected = c.deps.connection;
  if (injected) {
    // The holder's share of a shared (daemon) or replay connection: released, never closed here.
    c.own(() => injected.release());
    const clock = c.deps.clock ?? systemClock();
    // `record:` on a shared connection: this holder's rooms only (run-recorder.ts). A replay has no tap.
    const rec = injected.recordTap ? openRunRecorder(d, { clock, redactor: c.redactor, log: c.log, seed: c.seed, simulator: !d.endpoints.remote }) : undefined;
    if (!rec || !injected.recordTap) return { clock, connection: injected };
    const share = recordShare(rec, injected.feed, injected.data, injected.recordTap);
    c.own(() => share.stop());
    return { clock, connection: { ...injected, feed: share.feed, data: share.data } };
  }
  const knobs = c.deps.datastream ?? {};
  if (d.endpoints.remote) {
    const clock = c.deps.clock ?? systemClock();
    const r = d.endpoints.remote;
    const rec = openRunRecorder(d, { clock, redactor: c.redactor, log: c.log, seed: c.seed, simulator: false });
    const owned = connectFeed({ baseUrl: r.baseUrl, datastreamUrl: r.datastreamUrl, apiKey: r.apiKey, redactor: c.redactor, seed: c.seed, clock, knobs, ...(rec ? { onRawFrame: rec.onRawFrame } : {}) });
    c.own(() => owned.release());
    return { clock, connection: recorded(c, owned, rec), owned };
  }
  const speed = c.deps.speed ?? d.endpoints.simulator?.speed ?? 60;
  const sim = await startEmbeddedSim({
    seed: c.seed, speed, redactor: c.redactor, log: c.log.child({ part: 'sim' }),
    ...(services ? { services } : {}),
    ...(c.deps.simulatorClock ? { clock: c.deps.simulatorClock } : {}),
    ...(c.deps.simulatorStartAt !== undefined ? { startAt: c.deps.simulatorStartAt } : {}),
  });
  c.own(() => sim.stop());
  const rec = openRunRecorder(d, { clock: sim.clock, redactor: c.redactor, log: c.log, seed: c.seed, simulator: true });
  const owned = connectFeed({
    baseUrl: sim.sim.urls.base, datastreamUrl: sim.sim.urls.datastream, apiKey: sim.apiKey, redactor: c.redactor, seed: c.seed, clock: sim.clock,
    knobs: { livenessTimeoutMs: EMBEDDED_LIVENESS_MS, ...knobs }, ...(rec ? { onRawFrame: rec.onRawFrame } : {}),
  });
  c.own(() => owned.release());
  return { clock: sim.clock, connection: recorded(c, owned, rec), owned, sim };
}

/**
 * With `record:` set, the recorder taps the connection (raw frames, connection events, ctx.data
 * answers) from now until the handle stops; otherwise the connection as it is.
 */
function recorded(c: AssemblyContext, owned: OwnedConnection, rec: ReturnType<typeof openRunRecorder>): FeedConnection {
  if (!rec) return owned;
  const unwatch = rec.watch(owned.client);
  rec.start();
  c.own(async () => {
    unwatch();
    rec.end();
    await rec.close();
  });
  return { ...owned, data: rec.data(owned.data) };
}

/**
 * Lockstep idle test of a run on the embedded simulator: every frame sent arrived, every room
 * joined is known to the server (no join lost to a race), no REST in flight. Frames sent to a
 * socket that was dropped never arrive: a forced step writes them off.
 */
export function embeddedIdle(sim: EmbeddedSim, owned: OwnedConnection): LockstepIdle {
  let lost = 0;
  return {
    idle() {
      if (owned.client.state === 'connecting' || owned.rest.inFlight() > 0) return false;
      const hub = sim.sim.stats();
      // Joins the hub refused (ROOM_LIMIT) are known to it too: the client still holds them.
      return owned.client.stats().frames + lost >= hub.framesSent && hub.rooms + hub.refusedRooms >= owned.client.rooms().length;
    },
    resync() {
      lost = Math.max(lost, sim.sim.stats().framesSent - owned.client.stats().frames);
    },
  };
}

/** Builds the paper assembly; see the module comment. */
export async function assemblePaper(c: AssemblyContext): Promise<Assembly> {
  const d = c.deployment;
  const strategies = await resolveStrategies(c.loaded);
  const { clock, connection, owned, sim } = await openEndpoint(c);
  const market = { get: (mint: string) => engine.market.get(mint) };
  const paper = createPaperExecutor({
    clock, market, latencyMs: d.paper.latency,
    fillModel: {
      extraSlippageBps: d.paper.extraSlippageBps, defaultPoolFeeBps: d.paper.defaultPoolFeeBps,
      networkFeeLamports: BigInt(d.paper.networkFeeLamports), priorityFeeCapLamports: BigInt(d.paper.priorityFeeCapLamports),
      assumedDepthLamports: d.paper.assumedDepthSol,
    },
  });
  const tracker = c.track(c.deps.executor ?? paper, clock);
  const { engine, closeDecisionLog } = createDeploymentEngine({
    deployment: d, strategies, feed: c.watchFeed(connection.feed), executor: tracker, clock, random: seededRandom(c.seed), log: c.log.child({ part: 'engine' }),
    startingCashLamports: d.paper.startingBalanceSol, data: connection.data, decisions: c.decisions, admission: c.admission,
  });
  const speed = sim?.speed;
  const where = sim
    ? `the embedded simulator (seed ${c.seed}, ${speed === 'max' ? 'max speed' : `${String(speed)}x real time`})`
    : d.endpoints.remote && !c.deps.connection ? 'the remote service' : 'the injected feed';
  return {
    engine, tracker, clock, connection, closeDecisionLog,
    ...(sim && owned ? { caughtUp: () => owned.client.stats().frames >= sim.sim.stats().framesSent, go: () => sim.drive(embeddedIdle(sim, owned)) } : {}),
    info: { strategies: strategies.map((s) => s.id), where, warnings: [], notes: [] },
  };
}
