/**
 * `chainpilot run FILE --live`: the live composition root. The same engine and strategies as paper
 * mode, with the live executor (swap → inspect → sign → journal → send → confirm) on the real
 * JSON-RPC and swap clients, the SQLite journal at `store.path` and the deployment's wallet.
 *
 * With simulator endpoints it starts the embedded simulator in process with its ledger and funds
 * the wallet (`live.simulatorFundSol`), so live mode can be rehearsed with no risk; with remote
 * endpoints it uses `rpcUrl`, `swapUrl` and the keys from the deployment.
 *
 * Order of start-up: rails (no I/O) → wallet → simulator or remote clients → network check →
 * journal → executor `start()` (reconciles every unfinished intent) → wallet balance read →
 * engine, feed and strategies. Nothing is submitted before reconciliation finished.
 */
import { randomBytes } from 'node:crypto';
import { createRpcClient, createSwapClient, type RpcClient, type SwapClient } from '../client/index.js';
import { lamportsToSol, seededRandom, systemClock, type Clock } from '../core/index.js';
import type { Engine } from '../engine/engine.js';
import type { RunSummary } from '../engine/engine-stats.js';
import type { ExecutionReport, ExecutionSink, Executor } from '../engine/execution-port.js';
import type { IntentJournal } from '../executors/journal/journal.js';
import { createLiveExecutor } from '../executors/live/live-executor.js';
import type { LedgerServicesOptions } from '../sim/ledger/index.js';
import { ledgerServices } from '../sim/ledger/index.js';
import { startSimulator, type RunningSimulator } from '../sim/start-simulator.js';
import { createDeploymentEngine } from './deployment-engine.js';
import { openDeploymentStore, resolveStorePath } from './deployment-store.js';
import { checkLiveNetwork } from './live-network.js';
import { checkLiveDeployment, liveCapWarnings, type LiveConfirmation } from './live-rails.js';
import { readWalletHoldings, walletSigner } from './live-wallet.js';
import { resolveStrategies } from './resolve-strategies.js';
import { connectFeed, openRun, waitForStop, type RunBaseOptions } from './run-common.js';
import { createStatusPanel, formatSummary } from './status-panel.js';

export interface RunLiveOptions extends RunBaseOptions, LiveConfirmation {
  /** Overrides `endpoints.simulator.speed` (simulator endpoints only). */
  readonly speed?: number | 'max';
  /** Seed of the engine's ids and of the simulator (overrides `endpoints.simulator.seed`). */
  readonly seed?: number;
  /** Ledger knobs of the embedded simulator (tests: faults, slot time). */
  readonly ledger?: Omit<LedgerServicesOptions, 'onLedger'>;
  /**
   * Called once the engine stopped and in-flight intents drained, before anything is closed
   * (tests read the chain and the journal here).
   */
  readonly inspect?: (view: LiveRunView) => Promise<void> | void;
}

/** What `inspect` sees of a finished live run. */
export interface LiveRunView {
  readonly wallet: string;
  readonly engine: Engine;
  readonly journal: IntentJournal;
  readonly rpc: RpcClient;
}

export interface LiveRunResult {
  readonly summary: RunSummary;
  readonly wallet: string;
  /** Intents still unresolved in the journal at exit (the next start reconciles them). */
  readonly unresolvedIntents: number;
  /** Wallet SOL on chain at exit, and the portfolio's cash: equal unless something was left unresolved. */
  readonly walletLamports: bigint;
  readonly cashLamports: bigint;
}

/** Runs a deployment in live mode until Ctrl-C, `durationMs` or `signal`; see the module comment. */
export async function runLive(o: RunLiveOptions): Promise<LiveRunResult> {
  const { loaded, deployment: d, redactor, log, out } = openRun(o);
  const network = checkLiveDeployment(d, o);
  for (const w of liveCapWarnings(d)) {
    out(`warning: ${w}\n`);
    log.warn({ warning: w }, 'live caps');
  }
  const strategies = await resolveStrategies(loaded);
  const signer = walletSigner(d);
  const seed = o.seed ?? d.endpoints.simulator?.seed ?? 1;
  const cleanup: (() => Promise<void> | void)[] = [];
  const closeAll = async (): Promise<void> => {
    for (const c of cleanup.reverse()) await c();
    cleanup.length = 0;
  };

  try {
    let sim: RunningSimulator | undefined;
    let clock: Clock = systemClock();
    let rpcUrl: string;
    let swapUrl: string;
    let rpcKey: string | undefined;
    let feedEndpoint: { baseUrl: string; datastreamUrl: string; apiKey: string };
    const remote = d.endpoints.remote;
    if (remote) {
      rpcUrl = remote.rpcUrl ?? '';
      swapUrl = remote.swapUrl ?? '';
      rpcKey = remote.rpcApiKey;
      feedEndpoint = { baseUrl: remote.baseUrl, datastreamUrl: remote.datastreamUrl, apiKey: remote.apiKey };
    } else {
      const apiKey = randomBytes(16).toString('hex');
      redactor.add(apiKey);
      const fund = d.live.simulatorFundSol;
      sim = await startSimulator({
        seed, speed: o.speed ?? d.endpoints.simulator?.speed ?? 60, apiKey, log: log.child({ part: 'sim' }),
        services: [ledgerServices({ ...o.ledger, onLedger: (ledger) => (fund > 0n ? void ledger.airdrop(signer.address, fund) : undefined) })],
      });
      const started = sim;
      cleanup.push(() => started.stop());
      clock = sim.clock;
      rpcUrl = sim.urls['rpc'] ?? '';
      swapUrl = sim.urls['swap'] ?? '';
      rpcKey = apiKey;
      feedEndpoint = { baseUrl: sim.urls.base, datastreamUrl: sim.urls.datastream, apiKey };
    }

    const rpc = createRpcClient({ url: rpcUrl, ...(rpcKey !== undefined ? { apiKey: rpcKey } : {}), redactor, timeoutMs: 5_000 });
    cleanup.push(() => rpc.close());
    await checkLiveNetwork(rpc, network, o.signal);
    const swap: SwapClient = createSwapClient({ url: swapUrl, ...(remote ? { apiKey: remote.apiKey } : {}), redactor, timeoutMs: 10_000 });
    cleanup.push(() => swap.close());

    // The store after the network check (a refused deployment creates no file): a second process on
    // it, or a store of another deployment or wallet, is refused before anything is reconciled.
    const store = openDeploymentStore({ path: resolveStorePath(loaded), deployment: d.name, wallet: signer.address });
    cleanup.push(() => store.close());
    const storePath = store.path;
    const journal = store.journal;
    const executor = createLiveExecutor({
      rpc, swap, signer, journal, clock, logger: log.child({ part: 'executor' }),
      settings: {
        maxTradeLamports: d.live.maxTradeSpendSol ?? 0n, maxDayLamports: d.live.maxDaySpendSol ?? 0n,
        allowedPrograms: d.live.allowedPrograms, commitment: d.live.commitment,
      },
    });

    // Reconcile before the engine exists: reports of earlier runs' intents are printed, not applied
    // (the engine's portfolio starts from the wallet's balance read after reconciliation).
    let engineSink: ExecutionSink | undefined;
    const reconciled: ExecutionReport[] = [];
    await executor.start((r) => (engineSink ? engineSink(r) : void reconciled.push(r)));
    if (reconciled.length > 0) out(`reconciled ${reconciled.length} report(s) of intents left by an earlier run: ${summarise(reconciled)}\n`);
    const startLamports = (await rpc.getBalance(signer.address, { commitment: 'confirmed' })).value;

    const { feed, rest } = connectFeed({ ...feedEndpoint, redactor, seed });
    cleanup.push(() => rest.close());
    cleanup.push(() => feed.close());
    const gated: Executor = {
      start: (sink) => {
        engineSink = sink;
        return Promise.resolve();
      },
      submit: (intent) => executor.submit(intent),
      stop: (signal) => executor.stop(signal),
    };
    // Positions of earlier runs come back from the journal (reconciled intents included), so a
    // restart keeps managing what the wallet holds; cash is the wallet's balance. Only against a
    // persistent chain: the embedded simulator starts a new ledger each run, where they never existed.
    const restored = sim ? { fills: [], failedFees: [] } : await store.restored();
    const restoredFills = restored.fills;
    if (restoredFills.length > 0) out(`restored ${restoredFills.length} fill(s) from the journal\n`);
    const { engine, closeDecisionLog } = createDeploymentEngine({
      deployment: d, strategies, feed, executor: gated, clock, random: seededRandom(seed), log: log.child({ part: 'engine' }),
      startingCashLamports: startLamports, data: rest.data, restoredFills,
      // Durable risk state, every fee paid, and intent ids unique across runs and processes.
      restoredFailedFees: restored.failedFees, riskStore: store.risk, intentIdPrefix: `int_${randomBytes(4).toString('hex')}_`,
    });
    const panel = createStatusPanel(engine, () => Date.now());
    await engine.start();
    try {
      const where = sim ? `the embedded simulator's ledger (seed ${seed})` : `${network} through ${redactor.redact(rpcUrl)}`;
      out(`chainpilot run --live: ${d.name} with ${strategies.map((s) => s.id).join(', ')} on ${where}; wallet ${signer.address} holds ${lamportsToSol(startLamports)} SOL; journal ${storePath}${o.durationMs ? `; for ${o.durationMs / 1000}s` : ''}; Ctrl-C stops\n`);
      await waitForStop({ ...(o.durationMs !== undefined ? { durationMs: o.durationMs } : {}), ...(o.signal ? { signal: o.signal } : {}), tickMs: d.telemetry.statusInterval, tick: () => out(`${panel.render()}\n`) });
    } finally {
      await engine.stop(AbortSignal.timeout(d.live.drainTimeout));
      await closeDecisionLog();
    }
    const unresolvedIntents = (await journal.unresolved()).length;
    const holdings = await readWalletHoldings(rpc, signer.address);
    await o.inspect?.({ wallet: signer.address, engine, journal, rpc });
    const summary = engine.stats.summary();
    const cashLamports = engine.portfolio.totals().cashLamports;
    out(`${redactor.redact(formatSummary(summary))}\n`);
    out(`wallet ${signer.address}: ${lamportsToSol(holdings.lamports)} SOL on chain, portfolio cash ${lamportsToSol(cashLamports)} SOL; ${unresolvedIntents} intent(s) left for the next start to reconcile\n`);
    return { summary, wallet: signer.address, unresolvedIntents, walletLamports: holdings.lamports, cashLamports };
  } finally {
    await closeAll();
  }
}

function summarise(reports: readonly ExecutionReport[]): string {
  const counts = new Map<string, number>();
  for (const r of reports) counts.set(r.type, (counts.get(r.type) ?? 0) + 1);
  return [...counts].map(([t, n]) => `${n} ${t}`).join(', ');
}
