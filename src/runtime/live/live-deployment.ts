/**
 * Composition root of live mode: the same engine and strategies as paper mode, with the live
 * executor (swap → inspect → sign → journal → send → confirm) on the real JSON-RPC and swap
 * clients, the SQLite journal at `store.path` and the deployment's wallet.
 *
 * With simulator endpoints it starts the embedded simulator in process with its ledger and funds
 * the wallet (`live.simulatorFundSol`), so live mode can be rehearsed with no risk; with remote
 * endpoints it uses `rpcUrl`, `swapUrl` and the keys from the deployment.
 *
 * Order of start-up: rails (no I/O) → wallet → simulator or remote clients → network check →
 * journal → executor `start()` (reconciles every unfinished intent) → wallet balance read →
 * engine, feed and strategies. Nothing is submitted before reconciliation finished. Every part
 * reads the run clock (the simulator's under the embedded simulator).
 */
import { randomBytes } from 'node:crypto';
import { createRpcClient, createSwapClient } from '../../client/index.js';
import { ChainpilotError, describeError, lamportsToSol, seededRandom } from '../../core/index.js';
import type { RestoredFailedFee, RestoredFill } from '../../engine/engine.js';
import type { ExecutionReport, ExecutionSink, Executor } from '../../engine/orders/execution-port.js';
import type { IntentJournal } from '../../executors/journal/journal.js';
import { createLiveExecutor } from '../../executors/live/live-executor.js';
import { ledgerServices } from '../../sim/ledger/index.js';
import type { SimServiceFactory } from '../../sim/market-port.js';
import type { Assembly, AssemblyContext } from '../compose/assembly.js';
import { createDeploymentEngine } from '../compose/deployment-engine.js';
import { openDeploymentStore, resolveStorePath } from '../store/deployment-store.js';
import { liveExecutorSettings } from './live-executor-settings.js';
import type { ShutdownIntentReport } from '../handle/deployment-handle.js';
import { isFatal } from '../handle/intent-tracker.js';
import { checkLiveNetwork } from './live-network.js';
import { checkLiveDeployment, liveCapWarnings } from './live-rails.js';
import { readWalletHoldings, walletSigner } from './live-wallet.js';
import { embeddedIdle, openEndpoint } from '../compose/run-endpoint.js';
import { createClientWork } from '../embedded/client-work.js';
import { resolveStrategies } from '../compose/resolve-strategies.js';
import { timedJournal } from './timed-journal.js';
import type { LiveEndState } from './live-run-view.js';

export type { LiveEndState, LiveRunView } from './live-run-view.js';

/** Builds the live assembly; `end` receives the wallet and journal state after the drain. */
export async function assembleLive(c: AssemblyContext, end: (s: LiveEndState) => void): Promise<Assembly> {
  const d = c.deployment;
  const network = checkLiveDeployment(d, c.deps.confirmation ?? {});
  const warnings = liveCapWarnings(d);
  for (const w of warnings) c.log.warn({ warning: w }, 'live caps');
  c.step('loading the strategies');
  const strategies = await resolveStrategies(c.loaded);
  const signer = walletSigner(d);
  c.step('opening the endpoint');
  const { clock, connection, owned, sim } = await openEndpoint(c, rehearsalLedger(c, signer.address), true);
  // On the embedded simulator the client's chain work holds its clock and a wait ends a step (client-work.ts).
  const work = sim ? createClientWork(clock) : undefined;
  const chainClock = work?.clock ?? clock;
  const held = <T>(p: Promise<T>): Promise<T> => (work ? work.track(p) : p);

  const remote = d.endpoints.remote;
  const rpcUrl = sim ? (sim.sim.urls['rpc'] ?? '') : (remote?.rpcUrl ?? '');
  const swapUrl = sim ? (sim.sim.urls['swap'] ?? '') : (remote?.swapUrl ?? '');
  const rpcKey = sim ? sim.apiKey : remote?.rpcApiKey;
  const random = seededRandom(c.seed);
  const telemetry = c.deps.telemetry;
  const observe = telemetry ? { telemetry: telemetry.client } : {};
  const rpc = createRpcClient({
    url: rpcUrl,
    ...(rpcKey !== undefined ? { apiKey: rpcKey } : {}),
    redactor: c.redactor,
    timeoutMs: 5_000,
    clock: chainClock,
    random: random.fork('rpc'),
    ...observe,
  });
  c.own(() => rpc.close());
  // The network check and reconciliation make RPC calls that wait on simulated time: move it now.
  if (sim && owned) sim.drive(embeddedIdle(sim, owned, work));
  c.step(`checking the network (${network})`);
  await held(checkLiveNetwork(rpc, network, c.signal, { clock: chainClock, random: () => random.fork('network').next() }));
  const swapKey = remote ? { apiKey: remote.apiKey } : {};
  const swap = createSwapClient({ url: swapUrl, ...swapKey, redactor: c.redactor, timeoutMs: 10_000, clock: chainClock, ...observe });
  c.own(() => swap.close());

  if (d.execution.queue && sim) {
    throw new ChainpilotError(
      'RUNTIME_LIVE_ENDPOINTS_MISSING',
      "execution.queue needs remote endpoints: workers in other processes cannot reach the embedded simulator's ledger; point endpoints.remote at the service (or remove execution.queue)",
      { retry: 'not_retryable' },
    );
  }
  // The store after the network check (a refused deployment creates no file): a second process on
  // it, or a store of another deployment or wallet, is refused before anything is reconciled.
  // The embedded simulator starts a new chain each run: its rehearsal gets a fresh journal of its own
  // (an earlier rehearsal's journal, of a chain that no longer exists, is set aside and named).
  const freshChain = sim ? `simulator-${randomBytes(6).toString('hex')}` : undefined;
  c.step('opening the store');
  const store = openDeploymentStore({
    path: resolveStorePath(c.loaded),
    deployment: d.name,
    wallet: signer.address,
    ...(freshChain !== undefined ? { freshChain } : {}),
  });
  c.own(() => store.close());
  const storePath = store.path;

  // Reconcile before the engine exists: reports of earlier runs' intents are described, not
  // applied (the engine's portfolio starts from the wallet's balance read after reconciliation).
  const reconciled: ExecutionReport[] = [];
  let journal: IntentJournal;
  let inner: Executor;
  let counters: () => Readonly<Record<string, number>>;
  // Positions of earlier runs come back from the journal (reconciled intents included), so a
  // restart keeps managing what the wallet holds; cash is the wallet's balance. Only against a
  // persistent chain: the embedded simulator starts a new ledger each run, where they never existed.
  let restored: { readonly fills: readonly RestoredFill[]; readonly failedFees: readonly RestoredFailedFee[] } = { fills: [], failedFees: [] };
  let via = `journal ${storePath}`;
  if (d.execution.queue) {
    // Queued execution: workers execute; the engine queues and reads reports back (BullMQ loads only here).
    const { createQueuedExecution } = await import('../queue/queued-execution.js');
    const queued = createQueuedExecution(d, { clock, log: c.log });
    if (!queued) throw new ChainpilotError('RUNTIME_LIVE_ENDPOINTS_MISSING', 'execution.queue is not set', { retry: 'not_retryable' });
    c.own(() => queued.executor.close());
    if (telemetry) c.own(telemetry.queue(() => queued.stats()));
    journal = queued.executor.journal;
    c.step('catching up with the queue');
    const caught = await queued.catchUp();
    reconciled.push(...caught.reports);
    restored = { fills: caught.restoredFills, failedFees: [] };
    inner = c.deps.executor ?? queued.executor;
    counters = () => ({});
    via = `queued to workers through Redis (${d.execution.queue.prefix})`;
  } else {
    journal = timedJournal(store.journal, telemetry ? (op, seconds, outcome) => telemetry.journalWrite(op, seconds, outcome) : undefined);
    const executor = createLiveExecutor({
      rpc,
      swap,
      signer,
      journal: c.deps.journal?.(journal) ?? journal,
      clock: chainClock,
      ...(work ? { work } : {}),
      logger: c.log.child({ part: 'executor' }),
      settings: liveExecutorSettings(d),
      onError: (e) => {
        if (isFatal(e)) c.onFatal(e);
      },
      // The journal cannot write: degraded (not ready, notified once) until it accepted every waiting write.
      onJournalHealth: (h) =>
        c.degrade(
          'LIVE_JOURNAL_UNAVAILABLE',
          h.degraded
            ? `${h.reason ?? 'LIVE_JOURNAL_UNAVAILABLE: the journal cannot write'}; sent intents are kept in memory and retried, new intents are refused`
            : undefined,
        ),
    });
    let engineSink: ExecutionSink | undefined;
    const open = (await journal.unresolved()).length;
    c.step(`reconciling the journal (${open} unresolved intent${open === 1 ? '' : 's'})`);
    // a stop during reconciliation stops the executor at once: what is unresolved stays in the journal
    const abandon = (): void => void executor.stop(AbortSignal.abort(c.signal.reason)).catch(() => undefined);
    c.signal.addEventListener('abort', abandon, { once: true });
    try {
      await executor.start((r) => (engineSink ? engineSink(r) : void reconciled.push(r)));
    } finally {
      c.signal.removeEventListener('abort', abandon);
    }
    inner = c.deps.executor ?? {
      start: (sink) => {
        engineSink = sink;
        return Promise.resolve();
      },
      submit: (intent) => executor.submit(intent),
      stop: (signal) => executor.stop(signal),
    };
    counters = () => executor.counters();
    if (!sim) restored = await store.restored();
  }
  const notes: string[] = [];
  if (freshChain !== undefined) {
    notes.push(
      `rehearsal on a fresh simulator chain (${freshChain}) with a fresh journal at ${storePath}${store.previous !== undefined ? `; the previous rehearsal's journal was moved to ${store.previous}` : ''}`,
    );
  }
  notes.push(clockNote(sim !== undefined));
  if (reconciled.length > 0) notes.push(`reconciled ${reconciled.length} report(s) of intents left by an earlier run: ${summarise(reconciled)}`);
  c.step('reading the wallet balance');
  const startLamports = (await held(rpc.getBalance(signer.address, { commitment: 'confirmed' }))).value;
  const tracker = c.track(inner, clock);
  const restoredFills = restored.fills;
  if (restoredFills.length > 0) notes.push(`restored ${restoredFills.length} fill(s) from the journal`);
  // eslint-disable-next-line @typescript-eslint/unbound-method -- a factory's methods are closures: no `this`
  const { engine, closeDecisionLog } = createDeploymentEngine({
    deployment: d,
    strategies,
    feed: c.watchFeed(connection.feed),
    executor: tracker,
    clock,
    random: seededRandom(c.seed),
    log: c.log.child({ part: 'engine' }),
    startingCashLamports: startLamports,
    data: connection.data,
    restoredFills,
    decisions: c.decisions,
    admission: c.admission,
    restoredFailedFees: restored.failedFees,
    riskStore: store.risk,
    intentIdPrefix: `int_${randomBytes(4).toString('hex')}_`,
  });
  const where = sim ? `the embedded simulator's ledger (seed ${c.seed})` : `${network} through ${c.redactor.redact(rpcUrl)}`;
  return {
    engine,
    tracker,
    clock,
    connection,
    closeDecisionLog,
    ...(sim && owned ? { caughtUp: () => owned.client.stats().frames >= sim.sim.stats().framesSent } : {}),
    info: {
      strategies: strategies.map((s) => s.id),
      where,
      warnings,
      notes,
      detail: `wallet ${signer.address} holds ${lamportsToSol(startLamports)} SOL; ${via}`,
    },
    counters,
    async describeIntents(reports) {
      const out: ShutdownIntentReport[] = [];
      for (const r of reports) {
        const rec = await journal.get(r.intentId).catch((e: unknown) => {
          c.log.warn({ intentId: r.intentId, err: describeError(e) }, 'journal read for the shutdown report failed');
          return undefined;
        });
        const signature = rec?.attempts.at(-1)?.signature ?? r.signature;
        out.push({ ...r, state: rec?.state ?? r.state, ...(signature !== undefined ? { signature } : {}) });
      }
      return out;
    },
    async afterStop() {
      const unresolvedIntents = (await journal.unresolved()).length;
      const holdings = await readWalletHoldings(rpc, signer.address);
      await c.deps.inspect?.({ wallet: signer.address, engine, journal, rpc });
      end({ wallet: signer.address, unresolvedIntents, walletLamports: holdings.lamports, cashLamports: engine.portfolio.totals().cashLamports });
    },
  };
}

/**
 * The embedded simulator's ledger of a rehearsal, funding the wallet: it lands transactions by the
 * landing model (docs/simulator.md "Landing") unless the caller's knobs say otherwise.
 */
function rehearsalLedger(c: AssemblyContext, wallet: string): SimServiceFactory[] {
  const fund = c.deployment.live.simulatorFundLamports;
  return [ledgerServices({ landing: {}, ...c.deps.ledger, onLedger: (ledger) => (fund > 0n ? void ledger.airdrop(wallet, fund) : undefined) })];
}

/** What the run's clock is, said once at start: the lockstep of the embedded simulator, or the wall. */
function clockNote(embedded: boolean): string {
  return embedded
    ? 'simulated clock in lockstep with the executor: a transaction lands after the simulated time the landing model draws (docs/simulator.md "Landing"), whatever the speed or the machine'
    : 'wall clock: transactions land in the time the network takes (a remote simulator too: only the embedded one runs in lockstep)';
}

function summarise(reports: readonly ExecutionReport[]): string {
  const counts = new Map<string, number>();
  for (const r of reports) counts.set(r.type, (counts.get(r.type) ?? 0) + 1);
  return [...counts].map(([t, n]) => `${n} ${t}`).join(', ');
}
