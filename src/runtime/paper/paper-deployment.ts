/**
 * Composition root of paper trading (and backtests): the deployment's engine with the paper
 * executor, on the injected connection and clock (backtest: a replay feed and a manual clock), or
 * else on the embedded simulator (its clock is the run's) or the remote service (system clock).
 *
 * A paper deployment with a store (the file names `store.path`, or the daemon gives a store
 * directory) keeps its paper book, risk day and kill switch there and resumes them at start, on
 * the same market only (see {@link paperStorePath} and paper-book.ts); a backtest never opens one.
 */
import { join } from 'node:path';
import { seededRandom } from '../../core/index.js';
import { paperExecutorSettings } from './paper-executor-settings.js';
import { createPaperExecutor } from '../../executors/paper/paper-executor.js';
import type { Assembly, AssemblyContext } from '../compose/assembly.js';
import { createDeploymentEngine } from '../compose/deployment-engine.js';
import { openDeploymentStore, resolveStorePath } from '../store/deployment-store.js';
import { resolveStrategies } from '../compose/resolve-strategies.js';
import { bookedExecutor, paperCashAfter, type PaperRestore } from '../store/paper-book.js';
import { embeddedIdle, openEndpoint } from '../compose/run-endpoint.js';

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

/** Builds the paper assembly; see the module comment. */
export async function assemblePaper(c: AssemblyContext): Promise<Assembly> {
  const d = c.deployment;
  c.step('loading the strategies');
  const strategies = await resolveStrategies(c.loaded);
  c.step('opening the endpoint');
  const { clock, connection, owned, sim, market: marketId } = await openEndpoint(c);
  c.step('opening the store');
  const storePath = paperStorePath(c);
  const store =
    storePath === undefined
      ? undefined
      : openDeploymentStore({
          path: storePath,
          deployment: d.name,
          paper: {
            market: marketId,
            at: clock.now(),
            onError: c.onFatal,
            ...(d.paper.bookRetention !== undefined ? { retentionMs: d.paper.bookRetention } : {}),
            ...(c.deps.paperBookWrites ? { defer: c.deps.paperBookWrites } : {}),
          },
        });
  if (store) c.own(() => store.close());
  const book = store?.paper;
  const restored: PaperRestore = book?.restored() ?? { fills: [], failedFees: [] };
  const market = { get: (mint: string) => engine.market.get(mint) };
  const paper = createPaperExecutor({
    clock,
    market,
    ...paperExecutorSettings(d, c.seed),
    // a resumed book's spend of the day counts against live.maxDaySpendSol, as a live journal's does
    ...(book ? { railsSpentBefore: book.spentBefore } : {}),
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
    ...(restored.carry ? { restoredCarry: restored.carry } : {}),
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
