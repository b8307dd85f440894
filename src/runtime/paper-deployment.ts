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
import { startEmbeddedSim, type EmbeddedSim } from './embedded-sim.js';
import { resolveStrategies } from './resolve-strategies.js';
import { connectFeed, type OwnedConnection } from './run-common.js';

/** Liveness of the Datastream client on the embedded simulator: a loopback socket in process, on simulated time. */
export const EMBEDDED_LIVENESS_MS = 24 * 3_600_000;

/** The feed connection and clock of a run: injected, the embedded simulator, or the remote service. */
export async function openEndpoint(c: AssemblyContext, services?: Parameters<typeof startEmbeddedSim>[0]['services']): Promise<{ clock: Clock; connection: FeedConnection; owned?: OwnedConnection; sim?: EmbeddedSim }> {
  const d = c.deployment;
  if (c.deps.connection) return { clock: c.deps.clock ?? systemClock(), connection: c.deps.connection };
  const knobs = c.deps.datastream ?? {};
  if (d.endpoints.remote) {
    const clock = c.deps.clock ?? systemClock();
    const r = d.endpoints.remote;
    const owned = connectFeed({ baseUrl: r.baseUrl, datastreamUrl: r.datastreamUrl, apiKey: r.apiKey, redactor: c.redactor, seed: c.seed, clock, knobs });
    c.own(() => owned.release());
    return { clock, connection: owned, owned };
  }
  const speed = c.deps.speed ?? d.endpoints.simulator?.speed ?? 60;
  const sim = await startEmbeddedSim({
    seed: c.seed, speed, redactor: c.redactor, log: c.log.child({ part: 'sim' }),
    ...(services ? { services } : {}),
    ...(c.deps.simulatorClock ? { clock: c.deps.simulatorClock } : {}),
    ...(c.deps.simulatorStartAt !== undefined ? { startAt: c.deps.simulatorStartAt } : {}),
  });
  c.own(() => sim.stop());
  const owned = connectFeed({
    baseUrl: sim.sim.urls.base, datastreamUrl: sim.sim.urls.datastream, apiKey: sim.apiKey, redactor: c.redactor, seed: c.seed, clock: sim.clock,
    knobs: { livenessTimeoutMs: EMBEDDED_LIVENESS_MS, ...knobs },
  });
  c.own(() => owned.release());
  return { clock: sim.clock, connection: owned, owned, sim };
}

/** Lockstep idle test of a run on the embedded simulator: every frame sent arrived, no REST in flight. */
export function embeddedIdle(sim: EmbeddedSim, owned: OwnedConnection): () => boolean {
  return () => {
    if (owned.client.state === 'connecting' || owned.rest.inFlight() > 0) return false;
    const hub = sim.sim.stats();
    // every frame sent arrived, and every room joined is known to the server (joins are not lost to a race)
    return owned.client.stats().frames >= hub.framesSent && hub.rooms >= owned.client.rooms().length;
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
