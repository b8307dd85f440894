/**
 * Composition root of paper trading (and backtests): the deployment's engine with the paper
 * executor, on the injected connection and clock (backtest: a replay feed and a manual clock), or
 * else on the embedded simulator (its clock is the run's) or the remote service (system clock).
 *
 * A paper deployment with a store (the file names `store.path`, or the daemon gives a store
 * directory) keeps its paper book, risk day and kill switch there and resumes them at start, on
 * the same market only (see {@link paperStorePath} and paper-book.ts); a backtest never opens one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { seededRandom, systemClock, type Clock } from '../core/index.js';
import { paperExecutorSettings } from './paper-executor-settings.js';
import { createPaperExecutor } from '../executors/paper/paper-executor.js';
import type { Assembly, AssemblyContext } from './assembly.js';
import { createDeploymentEngine } from './deployment-engine.js';
import type { FeedConnection } from './deployment-handle.js';
import { openDeploymentStore, resolveStorePath } from './deployment-store.js';
import { startEmbeddedSim, type EmbeddedSim, type LockstepIdle } from './embedded-sim.js';
import { resolveStrategies } from './resolve-strategies.js';
import { openRunRecorder, recordShare } from '../research/record/run-recorder.js';
import { bookedExecutor, paperCashAfter, type PaperRestore } from './paper-book.js';
import { connectFeed, type OwnedConnection } from './run-common.js';

/** Liveness of the Datastream client on the embedded simulator: a loopback socket in process, on simulated time. */
export const EMBEDDED_LIVENESS_MS = 24 * 3_600_000;

/**
 * Identity of a remote market: the base URL's origin and a hash of the whole URL (a key in its
 * path or query never shows). The service behind a URL is taken to be one persistent market.
 */
export function remoteMarket(baseUrl: string): string {
  let origin = 'remote';
  try {
    origin = new URL(baseUrl).origin;
  } catch {
    // not a URL: the hash alone names it
  }
  return `remote ${origin} #${createHash('sha256').update(baseUrl).digest('hex').slice(0, 12)}`;
}

/** Identity of one embedded simulator instance: each one is a fresh market, even with the same seed. */
export function simulatorMarket(seed: number): string {
  return `embedded simulator seed ${seed} #${randomBytes(6).toString('hex')}`;
}

/** The feed connection and clock of a run: injected, the embedded simulator, or the remote service; `market` names what it trades on. */
export async function openEndpoint(
  c: AssemblyContext,
  services?: Parameters<typeof startEmbeddedSim>[0]['services'],
): Promise<{ clock: Clock; connection: FeedConnection; market: string; owned?: OwnedConnection; sim?: EmbeddedSim }> {
  const d = c.deployment;
  const injected = c.deps.connection;
  if (injected) {
    // The holder's share of a shared (daemon) or replay connection: released, never closed here.
    c.own(() => injected.release());
    const clock = c.deps.clock ?? systemClock();
    const market = c.deps.market ?? 'the injected feed';
    // `record:` on a shared connection: this holder's rooms only (run-recorder.ts). A replay has no tap.
    const rec = injected.recordTap ? openRunRecorder(d, { clock, redactor: c.redactor, log: c.log, seed: c.seed, simulator: !d.endpoints.remote }) : undefined;
    if (!rec || !injected.recordTap) return { clock, connection: injected, market };
    const share = recordShare(rec, injected.feed, injected.data, injected.recordTap);
    c.onStopPhase((phase) => rec.mark(phase));
    c.own(() => share.stop());
    return { clock, connection: { ...injected, feed: share.feed, data: share.data }, market };
  }
  const knobs = c.deps.datastream ?? {};
  if (d.endpoints.remote) {
    const clock = c.deps.clock ?? systemClock();
    const r = d.endpoints.remote;
    const rec = openRunRecorder(d, { clock, redactor: c.redactor, log: c.log, seed: c.seed, simulator: false });
    const owned = connectFeed({
      baseUrl: r.baseUrl,
      datastreamUrl: r.datastreamUrl,
      apiKey: r.apiKey,
      redactor: c.redactor,
      seed: c.seed,
      clock,
      knobs,
      ...(rec ? { onRawFrame: rec.onRawFrame } : {}),
      ...(c.deps.telemetry ? { telemetry: c.deps.telemetry.client } : {}),
    });
    c.own(() => owned.release());
    return { clock, connection: recorded(c, owned, rec), owned, market: remoteMarket(r.baseUrl) };
  }
  const speed = c.deps.speed ?? d.endpoints.simulator?.speed ?? 60;
  const sim = await startEmbeddedSim({
    seed: c.seed,
    speed,
    redactor: c.redactor,
    log: c.log.child({ part: 'sim' }),
    ...(services ? { services } : {}),
    ...(c.deps.simulatorClock ? { clock: c.deps.simulatorClock } : {}),
    ...(c.deps.simulatorStartAt !== undefined ? { startAt: c.deps.simulatorStartAt } : {}),
  });
  c.own(() => sim.stop());
  const rec = openRunRecorder(d, { clock: sim.clock, redactor: c.redactor, log: c.log, seed: c.seed, simulator: true });
  const owned = connectFeed({
    baseUrl: sim.sim.urls.base,
    datastreamUrl: sim.sim.urls.datastream,
    apiKey: sim.apiKey,
    redactor: c.redactor,
    seed: c.seed,
    clock: sim.clock,
    knobs: { livenessTimeoutMs: EMBEDDED_LIVENESS_MS, ...knobs },
    ...(rec ? { onRawFrame: rec.onRawFrame } : {}),
    ...(c.deps.telemetry ? { telemetry: c.deps.telemetry.client } : {}),
  });
  c.own(() => owned.release());
  return { clock: sim.clock, connection: recorded(c, owned, rec), owned, sim, market: simulatorMarket(c.seed) };
}

/**
 * Where a paper deployment keeps its book: `store.path` when the file names it (resolved against
 * the file), else `<storeDir>/<name>.db` when the runtime was given a store directory (the daemon's
 * `--data-dir`), else nowhere (in memory: the default `store.path` is shared by every file of a
 * directory, so it is not used for paper books). A backtest is a replay: never a store.
 */
export function paperStorePath(c: Pick<AssemblyContext, 'loaded' | 'deps'>): string | undefined {
  if (c.deps.mode === 'backtest') return undefined;
  const named = c.loaded.locate(['store', 'path']) !== c.loaded.locate(['store']);
  if (named) return resolveStorePath(c.loaded);
  if (c.deps.storeDir !== undefined) return join(c.deps.storeDir, `${encodeURIComponent(c.loaded.deployment.name)}.db`);
  return undefined;
}

/**
 * With `record:` set, the recorder taps the connection (raw frames, connection events, ctx.data
 * answers) from now until the handle stops; otherwise the connection as it is.
 */
function recorded(c: AssemblyContext, owned: OwnedConnection, rec: ReturnType<typeof openRunRecorder>): FeedConnection {
  if (!rec) return owned;
  const unwatch = rec.watch(owned.client);
  rec.start();
  c.onStopPhase((phase) => rec.mark(phase));
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
      return owned.client.framesReceived() + lost >= hub.framesSent && hub.rooms + hub.refusedRooms >= owned.client.rooms().length;
    },
    resync() {
      lost = Math.max(lost, sim.sim.stats().framesSent - owned.client.framesReceived());
    },
  };
}

/** Builds the paper assembly; see the module comment. */
export async function assemblePaper(c: AssemblyContext): Promise<Assembly> {
  const d = c.deployment;
  const strategies = await resolveStrategies(c.loaded);
  const { clock, connection, owned, sim, market: marketId } = await openEndpoint(c);
  const storePath = paperStorePath(c);
  const store =
    storePath === undefined ? undefined : openDeploymentStore({ path: storePath, deployment: d.name, paper: { market: marketId, at: clock.now() } });
  if (store) c.own(() => store.close());
  const book = store?.paper;
  const restored: PaperRestore = book?.restored() ?? { fills: [], failedFees: [] };
  const market = { get: (mint: string) => engine.market.get(mint) };
  const paper = createPaperExecutor({
    clock,
    market,
    ...paperExecutorSettings(d, c.seed),
  });
  const inner = c.deps.executor ?? paper;
  const tracker = c.track(book ? bookedExecutor(inner, book) : inner, clock);
  // eslint-disable-next-line @typescript-eslint/unbound-method -- a factory's methods are closures: no `this`
  const { engine, closeDecisionLog } = createDeploymentEngine({
    deployment: d,
    strategies,
    feed: c.watchFeed(connection.feed),
    executor: tracker,
    clock,
    random: seededRandom(c.seed),
    log: c.log.child({ part: 'engine' }),
    startingCashLamports: paperCashAfter(d.paper.startingBalanceLamports, restored),
    data: connection.data,
    decisions: c.decisions,
    admission: c.admission,
    restoredFills: restored.fills,
    restoredFailedFees: restored.failedFees,
    ...(store ? { riskStore: store.risk } : {}),
    // Ids of a resumed book never repeat an earlier run's; a fresh book's are those of a run without a store.
    ...(book && book.run > 1 ? { intentIdPrefix: `int_r${book.run}_` } : {}),
  });
  const notes: string[] = [];
  if (book?.replacedMarket !== undefined)
    notes.push(`started a fresh paper book: the store's book was kept for another market (${book.replacedMarket}); this run trades on ${marketId}`);
  if (restored.fills.length > 0) notes.push(`restored ${restored.fills.length} paper fill(s) from the store`);
  if (book && book.abandoned.length > 0)
    notes.push(
      `${book.abandoned.length} paper intent(s) in flight when the previous run ended resolved as expired, not filled: ${book.abandoned.map((i) => i.id).join(', ')}`,
    );
  for (const n of notes) c.log.info({ store: store?.path }, n);
  const speed = sim?.speed;
  const where = sim
    ? `the embedded simulator (seed ${c.seed}, ${speed === 'max' ? 'max speed' : `${String(speed)}x real time`})`
    : d.endpoints.remote && !c.deps.connection
      ? 'the remote service'
      : 'the injected feed';
  return {
    engine,
    tracker,
    clock,
    connection,
    closeDecisionLog,
    ...(sim && owned ? { caughtUp: () => owned.client.framesReceived() >= sim.sim.stats().framesSent, go: () => sim.drive(embeddedIdle(sim, owned)) } : {}),
    info: { strategies: strategies.map((s) => s.id), where, warnings: [], notes, ...(store ? { detail: `paper book ${store.path}` } : {}) },
  };
}
