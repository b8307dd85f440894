/**
 * A hand-written fake of the deployment handle for supervisor and control-API tests: the test
 * drives its state, feed health and events. Real deployments are covered by the daemon's
 * end-to-end tests.
 */
import { silentLogger, type Clock, type UnixMs } from '../../src/core/index.js';
import type { LoadedDeployment } from '../../src/config/index.js';
import type { DeploymentEvent, DeploymentHandle, DeploymentState, FeedHealth, ShutdownReport } from '../../src/runtime/handle/deployment-handle.js';
import type { RunSummary } from '../../src/engine/logs/engine-stats.js';
import { createSupervisor, type Supervisor, type SupervisorOptions } from '../../src/service/daemon/supervisor.js';

/** The one token a fake handle holds (a manual close of it is placed; anything else is refused). */
export const HELD_MINT = 'HeLdMint11111111111111111111111111111111111';

export interface FakeHandle extends DeploymentHandle {
  emit(ev: DeploymentEvent): void;
  setFeed(f: Partial<FeedHealth>): void;
  /** Sets what `stats().reconciliation` reports (unknown submits, reports for unknown intents). */
  setReconciliation(r: { submitsUnknown: number; unknownReports: number }): void;
  /** Ends the handle by itself (a fatal error). */
  die(cause: { code: string; message: string }): void;
  readonly calls: string[];
  state: DeploymentState;
  killed: boolean;
}

const summary = (at: number): RunSummary => ({
  startedAt: 0 as UnixMs,
  endedAt: at as UnixMs,
  events: 0,
  frames: 0,
  badFrames: 0,
  intents: 0,
  fills: 0,
  denials: 0,
  rejections: 0,
  refusalsByCode: {},
  trades: 0,
  wins: 0,
  winRate: 0,
  realisedLamports: 0n,
  unrealisedLamports: 0n,
  feesLamports: 0n,
  equityLamports: 10_000_000_000n,
  maxDrawdownLamports: 0n,
  openPositions: 0,
  strategyErrors: 0,
  tokensQuarantined: 0,
});

export function fakeHandle(loaded: LoadedDeployment, o: { now: () => number; failStart?: { code: string; message: string } }): FakeHandle {
  const listeners = new Set<(e: DeploymentEvent) => void>();
  let resolveDone!: (r: ShutdownReport) => void;
  const done = new Promise<ShutdownReport>((r) => (resolveDone = r));
  let reconciliation = { submitsUnknown: 0, unknownReports: 0 };
  let feed: FeedHealth = {
    state: 'open',
    connected: true,
    lastFrameAt: o.now() as UnixMs,
    framesPerSec: 0,
    frames: 0,
    gaps: 0,
    reconnects: 0,
    rejected: 0,
    rejectedByFamily: {},
    dropped: 0,
    backfillFailures: 0,
  };
  let cause: { code: string; message: string } | undefined;
  const report = (): ShutdownReport => ({ name: loaded.deployment.name, drainedWithinDeadline: true, intents: [], summary: summary(o.now()), fatal: cause });
  const h: FakeHandle = {
    name: loaded.deployment.name,
    mode: loaded.deployment.mode === 'live' ? 'live' : 'paper',
    state: 'created',
    killed: false,
    calls: [],
    async start() {
      h.calls.push('start');
      if (o.failStart) {
        cause = o.failStart;
        h.state = 'failed';
        throw Object.assign(new Error(o.failStart.message), { code: o.failStart.code });
      }
      h.state = h.killed ? 'killed' : 'running';
      h.emit({ type: 'state', at: o.now() as UnixMs, state: h.state });
    },
    async stop() {
      h.calls.push('stop');
      h.state = 'stopped';
      const r = report();
      resolveDone(r);
      return r;
    },
    health() {
      const ready = h.state === 'running' && feed.connected;
      return {
        name: h.name,
        mode: h.mode,
        state: h.state,
        cause,
        ready,
        reasons: ready ? [] : [feed.connected ? `state ${h.state}` : 'feed not connected'],
        feed,
        startedAt: 0 as UnixMs,
        at: o.now() as UnixMs,
      };
    },
    summary: () => summary(o.now()),
    stats() {
      return {
        summary: summary(o.now()),
        positions: [],
        pending: [],
        denialsByCode: {},
        reconciliation,
        risk: {
          dayStartedAt: 0 as UnixMs,
          dayStartEquityLamports: 10_000_000_000n,
          dailyLossLamports: 0n,
          dailyLossLimitLamports: 1_000_000_000n,
          dailyHalted: false,
          killed: h.killed,
          killReason: undefined,
          exposureLamports: 0n,
          maxExposureLamports: undefined,
        },
      };
    },
    events: {
      on(l) {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    },
    async kill(reason) {
      h.calls.push(`kill:${reason}`);
      h.killed = true;
      h.state = 'killed';
      h.emit({ type: 'state', at: o.now() as UnixMs, state: 'killed' });
    },
    async unkill() {
      h.calls.push('unkill');
      h.killed = false;
      h.state = 'running';
      h.emit({ type: 'state', at: o.now() as UnixMs, state: 'running' });
    },
    pause(reason) {
      h.calls.push(`pause:${reason}`);
      h.state = 'paused';
    },
    resume() {
      h.calls.push('resume');
      h.state = 'running';
    },
    done: () => done,
    manual(action, meta) {
      h.calls.push(
        `manual:${action.action}:${action.action === 'cancel' ? action.intentId : action.mint}:${action.action === 'close' ? action.fractionBps : ''}:${meta.by}`,
      );
      return action.action === 'close' && action.mint === HELD_MINT
        ? { ok: true, intentId: 'int_fake_1' }
        : { ok: false, code: 'ENGINE_MANUAL_REFUSED', reason: `no open position on ${action.action === 'cancel' ? '' : action.mint}` };
    },
    emit(ev) {
      for (const l of listeners) l(ev);
    },
    setFeed(f) {
      feed = { ...feed, ...f };
    },
    setReconciliation(r) {
      reconciliation = r;
    },
    die(c) {
      cause = c;
      h.state = 'failed';
      h.emit({ type: 'state', at: o.now() as UnixMs, state: 'failed', cause: c });
      resolveDone(report());
    },
  };
  return h;
}

/**
 * A real supervisor whose deployments are fake handles on `clock`: every handle it makes is kept,
 * in order (`made`) and the latest by deployment name (`byName`). Shared dependencies are acquired
 * with nothing in them unless `deps` says otherwise; `failStart` makes the named deployments' starts fail.
 */
export function fakeSupervisor(
  clock: Clock,
  o: Partial<Pick<SupervisorOptions, 'backoff' | 'deps' | 'onEvent'>> & { readonly failStart?: Record<string, { code: string; message: string }> } = {},
): { sup: Supervisor; made: FakeHandle[]; byName: Map<string, FakeHandle> } {
  const made: FakeHandle[] = [];
  const byName = new Map<string, FakeHandle>();
  const sup = createSupervisor({
    clock,
    log: silentLogger(),
    ...(o.backoff ? { backoff: o.backoff } : {}),
    deps: o.deps ?? { acquire: async () => ({ deps: {}, release: async () => undefined }) },
    factory: (loaded) => {
      const fail = o.failStart?.[loaded.deployment.name];
      const h = fakeHandle(loaded, { now: () => clock.now(), ...(fail ? { failStart: fail } : {}) });
      made.push(h);
      byName.set(h.name, h);
      return h;
    },
    ...(o.onEvent ? { onEvent: o.onEvent } : {}),
  });
  return { sup, made, byName };
}
