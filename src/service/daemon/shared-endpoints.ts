/**
 * One feed connection per endpoint for all the daemon's deployments: one Datastream client (rooms
 * reference-counted across deployments by the client itself) and one REST pool per endpoint.
 * Paper deployments on the embedded simulator with the same seed and speed share one simulator,
 * moved in step with the shared client. That simulator runs in a worker thread with its own heap
 * limit (src/runtime/embedded/isolated-sim.ts): one that outgrows it is restarted on the same port, and only
 * its deployments see a feed loss. A live deployment on simulator endpoints keeps its own
 * simulator (it needs its own ledger and funded wallet); live deployments on the remote service
 * share the remote connection like paper ones. A connection closes when its last holder releases it.
 * A holder with `record:` taps the shared client's raw frames and records those of its own rooms
 * (src/research/record/run-recorder.ts, `recordShare`).
 */
import { runRecording } from '../../research/record/run-recorder.js';
import { createHash } from 'node:crypto';
import {
  createLifecycle,
  createRedactor,
  describeError,
  lifecycleMembers,
  systemClock,
  type Clock,
  type Lifecycle,
  type Logger,
  type Redactor,
  type UnixMs,
} from '../../core/index.js';
import type { LoadedDeployment } from '../../config/index.js';
import type { RuntimeDeps } from '../../runtime/compose/assembly.js';
import type { FeedConnection } from '../../runtime/handle/deployment-handle.js';
import { isolatedIdle, startIsolatedSim, type IsolatedSim } from '../../runtime/embedded/isolated-sim.js';
import { EMBEDDED_LIVENESS_MS, remoteMarket, simulatorMarket } from '../../runtime/compose/run-endpoint.js';
import { connectFeed, type OwnedConnection } from '../../runtime/compose/run-common.js';
import type { ServiceMetrics } from './service-metrics.js';
import type { DepsProvider } from './supervisor.js';

interface Shared {
  readonly key: string;
  readonly owned: OwnedConnection;
  readonly clock: Clock;
  readonly sim: IsolatedSim | undefined;
  /** The market's identity (a paper book resumes only on the market it was kept for). */
  readonly market: string;
  /** Raw-frame taps of the holders that record (`record:`); empty costs one loop per frame. */
  readonly taps: Set<(text: string, receivedAt: UnixMs) => void>;
  holders: number;
}

/**
 * A {@link Lifecycle} built running: `stop()` closes every endpoint (after the supervisor stopped
 * every deployment); not ready while a shared simulator restarts.
 */
export interface SharedEndpoints extends DepsProvider, Lifecycle {
  /** Endpoints open right now, with their holder counts (tests, status). */
  open(): { readonly key: string; readonly holders: number }[];
  /** The shared simulators running now, by endpoint key (metrics, tests). */
  simulators(): { readonly key: string; readonly sim: IsolatedSim }[];
}

export interface SharedEndpointsOptions {
  readonly log: Logger;
  /** Shared by every deployment of the daemon: secrets of each are added when it is acquired. */
  readonly redactor?: Redactor;
  /** Extra deps given to every deployment (confirmation of live deployments is added per name). */
  readonly base?: (loaded: LoadedDeployment) => RuntimeDeps;
  /** Speed override for every simulator endpoint (tests, benches). */
  readonly speed?: number | 'max';
  /** Datastream knobs of remote connections (tests: quick reconnects). */
  readonly datastream?: RuntimeDeps['datastream'];
  /** Metrics of the shared REST clients and of each deployment's own parts (`deps.telemetry`). */
  readonly telemetry?: Pick<ServiceMetrics, 'endpoint' | 'deployment'>;
  /** Heap limit of each shared simulator's worker (MB; default DEFAULT_SIM_HEAP_MB); `testHooks` for tests of the restart. */
  readonly simulator?: { readonly maxHeapMb?: number; readonly testHooks?: boolean };
}

/**
 * Real ms per event-loop turn a shared connection spends handing a read's frames to its holders
 * (the Datastream client's `sliceMs`): every frame costs one call per holder's engine, and at a
 * hundred holders one read took turns of tens of ms. The rest of a read follows in the next turns,
 * in order; each holder still gets every frame.
 */
export const FEED_SLICE_MS = 5;

/**
 * A shared connection's frame may reach some holders in one turn and the rest in the next (the
 * client's `deliveriesMayPause`) while no holder records: a recording holder's frames are written
 * when read, so each holder's delivery must happen in that turn too (delivery-queue.ts).
 */
const pauseUnlessRecorded = (taps: ReadonlySet<unknown>) => (): boolean => taps.size === 0;

/** One raw-frame hook for the shared client that calls every holder's recorder tap. */
const fanOut =
  (taps: ReadonlySet<(text: string, receivedAt: UnixMs) => void>) =>
  (text: string, receivedAt: UnixMs): void => {
    for (const t of taps) t(text, receivedAt);
  };

const short = (v: string): string => createHash('sha256').update(v).digest('hex').slice(0, 12);

/** The endpoint a deployment trades on, as a key (undefined: it keeps its own, see the module comment). */
export function endpointKey(loaded: LoadedDeployment, speedOverride?: number | 'max'): string | undefined {
  const d = loaded.deployment;
  if (d.endpoints.remote) {
    const r = d.endpoints.remote;
    return `remote:${r.baseUrl}|${r.datastreamUrl}|${short(r.apiKey)}`;
  }
  if (d.mode === 'live') return undefined;
  const sim = d.endpoints.simulator;
  return `sim:${sim?.seed ?? 1}:${speedOverride ?? sim?.speed ?? 60}`;
}

export function createSharedEndpoints(o: SharedEndpointsOptions): SharedEndpoints {
  const redactor = o.redactor ?? createRedactor();
  const shared = new Map<string, Promise<Shared>>();
  const ready = new Map<string, Shared>();
  const observed = o.telemetry ? { telemetry: o.telemetry.endpoint } : {};

  const openShared = async (key: string, loaded: LoadedDeployment): Promise<Shared> => {
    const d = loaded.deployment;
    const taps = new Set<(text: string, receivedAt: UnixMs) => void>();
    const log = o.log.child({ endpoint: key.startsWith('remote:') ? key.split('|')[0] : key });
    if (d.endpoints.remote) {
      const r = d.endpoints.remote;
      const clock = systemClock();
      const owned = connectFeed({
        baseUrl: r.baseUrl,
        datastreamUrl: r.datastreamUrl,
        apiKey: r.apiKey,
        redactor,
        seed: 1,
        clock,
        onRawFrame: fanOut(taps),
        sliceMs: FEED_SLICE_MS,
        deliveriesMayPause: pauseUnlessRecorded(taps),
        ...(o.datastream ? { knobs: o.datastream } : {}),
        ...observed,
      });
      log.info('shared remote endpoint opened');
      return { key, owned, clock, sim: undefined, market: remoteMarket(r.baseUrl), taps, holders: 0 };
    }
    const seed = d.endpoints.simulator?.seed ?? 1;
    const speed = o.speed ?? d.endpoints.simulator?.speed ?? 60;
    const sim = await startIsolatedSim({
      seed,
      speed,
      redactor,
      log: log.child({ part: 'sim' }),
      ...(o.simulator?.maxHeapMb !== undefined ? { maxHeapMb: o.simulator.maxHeapMb } : {}),
      ...(o.simulator?.testHooks ? { testHooks: true } : {}),
    });
    const owned = connectFeed({
      baseUrl: sim.urls.base,
      datastreamUrl: sim.urls.datastream,
      apiKey: sim.apiKey,
      redactor,
      seed,
      clock: sim.clock,
      knobs: { livenessTimeoutMs: EMBEDDED_LIVENESS_MS },
      onRawFrame: fanOut(taps),
      sliceMs: FEED_SLICE_MS,
      deliveriesMayPause: pauseUnlessRecorded(taps),
      ...observed,
    });
    const idle = isolatedIdle(owned);
    sim.drive(idle.idle, idle.resync);
    log.info({ seed, speed }, 'shared simulator endpoint started');
    // One market while this simulator runs (supervisor restarts resume on it); a new one after a daemon restart.
    return { key, owned, clock: sim.clock, sim, market: simulatorMarket(seed), taps, holders: 0 };
  };

  const close = async (s: Shared): Promise<void> => {
    try {
      await s.owned.release();
      await s.sim?.stop();
    } catch (e) {
      o.log.error({ endpoint: s.key, err: describeError(e) }, 'closing a shared endpoint failed');
    }
  };

  const life = createLifecycle(
    {
      name: 'shared endpoints',
      async halt() {
        const all = [...shared.values()];
        shared.clear();
        ready.clear();
        for (const p of all) await close(await p);
      },
      report: () => undefined,
      notReady: () => [...ready.values()].flatMap((s) => s.sim?.health().reasons ?? []),
    },
    { log: o.log, clock: systemClock(), defaultDrainMs: 0, running: true },
  );

  return {
    ...lifecycleMembers(life),
    async acquire(loaded) {
      for (const s of loaded.secrets) redactor.add(s);
      const base = { ...o.base?.(loaded), recording: runRecording, ...(o.telemetry ? { telemetry: o.telemetry.deployment(loaded.deployment.name) } : {}) };
      const key = endpointKey(loaded, o.speed);
      if (key === undefined) return { deps: { ...base, redactor, ...(o.speed !== undefined ? { speed: o.speed } : {}) }, release: async () => undefined };
      let pending = shared.get(key);
      if (!pending) {
        pending = openShared(key, loaded);
        shared.set(key, pending);
        pending.catch(() => shared.delete(key));
      }
      const s = await pending;
      ready.set(key, s);
      s.holders += 1;
      let released = false;
      const connection: FeedConnection = {
        feed: s.owned.feed,
        data: s.owned.data,
        ...(s.owned.watch ? { watch: s.owned.watch } : {}),
        // The holder's share is released by the supervisor (below), never by the handle.
        release: async () => undefined,
        recordTap: {
          onRawFrame: (h) => (s.taps.add(h), () => void s.taps.delete(h)),
          onEvent: (h) => s.owned.client.onEvent(h),
        },
      };
      return {
        deps: { ...base, redactor, connection, clock: s.clock, market: s.market },
        async release() {
          if (released) return;
          released = true;
          s.holders -= 1;
          if (s.holders === 0 && shared.get(key) !== undefined) {
            shared.delete(key);
            ready.delete(key);
            await close(s);
          }
        },
      };
    },
    open: () => [...ready.values()].map((s) => ({ key: s.key, holders: s.holders })),
    simulators: () => [...ready.values()].flatMap((s) => (s.sim ? [{ key: s.key, sim: s.sim }] : [])),
  };
}
