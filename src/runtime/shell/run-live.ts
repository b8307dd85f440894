/**
 * `chainpilot run FILE --live`: runs a deployment in live mode through its handle (see
 * live-deployment.ts for the composition and the order of start-up). A thin shell (run-shell.ts):
 * status panel, signals, drain with a per-intent report, summary, wallet line and exit status.
 */
import { lamportsToSol } from '../../core/index.js';
import type { RunSummary } from '../../engine/logs/engine-stats.js';
import type { LedgerServicesOptions } from '../../sim/ledger/index.js';
import type { ShutdownReport } from '../handle/deployment-handle.js';
import type { LiveRunView } from '../live/live-run-view.js';
import type { LiveConfirmation } from '../live/live-rails.js';
import { runShell, type ShellOptions } from './run-shell.js';

export type { LiveRunView } from '../live/live-run-view.js';

export interface RunLiveOptions extends ShellOptions, LiveConfirmation {
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

export interface LiveRunResult {
  readonly summary: RunSummary;
  readonly wallet: string;
  /** Intents still unresolved in the journal at exit (the next start reconciles them). */
  readonly unresolvedIntents: number;
  /** Wallet SOL on chain at exit, and the portfolio's cash: equal unless something was left unresolved. */
  readonly walletLamports: bigint;
  readonly cashLamports: bigint;
  readonly report: ShutdownReport;
  readonly exitCode: number;
  readonly problem: string | undefined;
}

/** Runs a deployment in live mode until a signal, `durationMs`, `signal` or a fatal error. */
export async function runLive(o: RunLiveOptions): Promise<LiveRunResult> {
  const r = await runShell(
    o,
    {
      mode: 'live',
      confirmation: { ...(o.live !== undefined ? { live: o.live } : {}), ...(o.confirm !== undefined ? { confirm: o.confirm } : {}) },
      ...(o.speed !== undefined ? { speed: o.speed } : {}),
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(o.ledger ? { ledger: o.ledger } : {}),
      ...(o.inspect ? { inspect: o.inspect } : {}),
    },
    (loaded, handle) =>
      `chainpilot run --live: ${loaded.deployment.name} with ${handle.startInfo()?.strategies.join(', ') ?? ''} on ${handle.startInfo()?.where ?? ''}`,
  );
  const end = r.handle.liveEnd();
  const out = o.out ?? ((t: string) => void process.stdout.write(t));
  if (end)
    out(
      `wallet ${end.wallet}: ${lamportsToSol(end.walletLamports)} SOL on chain, portfolio cash ${lamportsToSol(end.cashLamports)} SOL; ${end.unresolvedIntents} intent(s) left for the next start to reconcile\n`,
    );
  return {
    summary: r.report.summary,
    wallet: end?.wallet ?? '',
    unresolvedIntents: end?.unresolvedIntents ?? 0,
    walletLamports: end?.walletLamports ?? 0n,
    cashLamports: end?.cashLamports ?? 0n,
    report: r.report,
    exitCode: r.exitCode,
    problem: r.problem,
  };
}
