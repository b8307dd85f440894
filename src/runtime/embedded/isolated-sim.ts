/**
 * The embedded simulator apart from the daemon's heap: a worker thread (sim-worker.ts) with its own
 * heap limit (`resourceLimits`), serving the same loopback REST and Datastream ports a simulator in
 * process would. A simulator that outgrows its limit (or fails) dies alone and is restarted on the
 * same port and API key, at the run's current time: its deployments see a feed loss and recover by
 * their feed policy; the daemon and its other endpoints never notice.
 *
 * One clock per run: the run's clock is the manual clock here, in the daemon's thread, moved by the
 * lockstep driver (lockstep-driver.ts) as for a simulator in process. Each step is posted to the
 * worker, whose own manual clock only follows (`advance {to}`) and never moves by itself; its answer
 * carries the hub's counters after the step, and the driver steps again only when the deployments
 * took in every frame those counters say was sent. A restarted simulator starts at the run clock's
 * current time, so the run's time never goes back. (A REST answer given between a step of the run
 * clock and the worker's may be stamped up to one step earlier.)
 */
import { randomBytes } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import {
  ChainpilotError,
  createLifecycle,
  describeError,
  lifecycleMembers,
  manualClock,
  systemClock,
  type Lifecycle,
  type Logger,
  type ManualClock,
  type Redactor,
  type UnixMs,
} from '../../core/index.js';
import type { MarketSettings } from '../../sim/sim-settings.js';
import type { HubStats } from '../../sim/stream/datastream-hub.js';
import { MAX_SPEED_START_AT } from './embedded-sim.js';
import { createLockstepDriver, type LockstepDriver } from './lockstep-driver.js';
import { siblingModule, startModuleWorker } from '../module-worker.js';
import type { OwnedConnection } from '../compose/run-common.js';
import type { SimWorkerData, SimWorkerRequest } from './sim-worker.js';

/** Default heap limit of one simulator worker (V8 old generation). */
export const DEFAULT_SIM_HEAP_MB = 512;

/**
 * The history a daemon's simulator keeps: dead tokens leave 1 h after they stopped trading and
 * trade rows after 1 h, pruned every 10 simulated minutes (a standalone simulator keeps 6 h and 3 h,
 * pruned hourly), and lighthouse activity stays in
 * minute buckets for 2 h (standalone 12 h; issue 42: with 12 h the heap kept rising by about 6 MB a
 * simulated hour until hour 12, 149 to 183 MB from hour 6 to 12, seed 42). With the defaults a
 * simulator's heap levels off near 450 MB after about 7 simulated hours; with these it levels off
 * after about 2 (docs/daemon.md, "Sizing" and "Memory over time").
 */
export const DAEMON_SIM_MARKET: Partial<MarketSettings> = {
  tokenRetentionMs: 3_600_000,
  tradeRetentionMs: 3_600_000,
  // issue 42: pruned hourly, the hour of retention held up to two hours of trade rows (130,000 an
  // hour, about 430 bytes each); every 10 minutes it holds at most 70 minutes of them
  tradePruneEveryMs: 600_000,
  activityMinuteDetailMs: 2 * 3_600_000,
};

export interface IsolatedSimOptions {
  readonly seed: number;
  readonly speed: number | 'max';
  readonly redactor: Redactor;
  readonly log: Logger;
  /** Heap limit of the worker (`resourceLimits.maxOldGenerationSizeMb`); default {@link DEFAULT_SIM_HEAP_MB}. */
  readonly maxHeapMb?: number;
  /** Market knobs of the simulator (default {@link DAEMON_SIM_MARKET}). */
  readonly market?: Partial<MarketSettings>;
  /** Lets `allocate()` make the worker grow past its limit (tests of the restart). */
  readonly testHooks?: boolean;
  /** Real ms of timer callbacks per event-loop turn of a clock step (default {@link STEP_SLICE_MS}; see `LockstepDriverOptions.sliceMs`). */
  readonly sliceMs?: number;
}

/**
 * Real milliseconds of the run clock's timer callbacks one event-loop turn runs before the rest of
 * the step waits for the next turn. The run clock is shared by every deployment on the simulator:
 * at a hundred deployments one step's due timers (fills settling, strategy ticks, feed checks) took
 * turns of tens of milliseconds; sliced, the event loop serves sockets and requests in between.
 */
export const STEP_SLICE_MS = 5;

/**
 * Real milliseconds of simulated time the least step of the daemon's simulator covers (at speed 60:
 * 240 ms, about one 250 ms step; see `LockstepDriverOptions.minStepRealMs`).
 */
export const MIN_STEP_REAL_MS = 4;

/** What the lockstep test of an isolated simulator says (see `IsolatedSim.drive`). */
export type IsolatedIdle = boolean | 'wire';

export interface SimHeap {
  readonly usedBytes: number;
  readonly limitBytes: number;
}

/** A {@link Lifecycle} built running; not ready while its worker restarts. */
export interface IsolatedSim extends Lifecycle {
  readonly urls: { readonly base: string; readonly datastream: string };
  readonly apiKey: string;
  /** The run's one clock (see the module comment). */
  readonly clock: ManualClock;
  readonly speed: number | 'max';
  /** Hub counters after the last step the worker answered (undefined while it restarts). */
  stats(): HubStats | undefined;
  /** The worker's heap at its last answer. */
  heap(): SimHeap | undefined;
  /** Times the worker died and was started again (a new simulator each time: its counters start at 0). */
  restarts(): number;
  /**
   * Starts moving time; `idle` says when the deployments took in what the current worker sent:
   * `true`, `false` (not yet: fresher counters may tell more) or `'wire'` (not yet: frames these
   * counters already count, REST answers or a connection are still on their way, so the worker is
   * not asked again).
   */
  drive(idle: (stats: HubStats, restarts: number) => IsolatedIdle, onForced: () => void): void;
  /** Test hook (with `testHooks`): the worker allocates until its heap limit ends it. */
  allocate(): void;
}

interface Ready {
  readonly urls: { readonly base: string; readonly datastream: string };
  readonly stats: HubStats;
  readonly heap: { used: number; limit: number };
}

type FromWorker =
  | ({ readonly type: 'ready' } & Ready)
  | { readonly type: 'ack'; readonly to: number; readonly stats: HubStats; readonly heap: { used: number; limit: number } }
  | { readonly type: 'stats'; readonly stats: HubStats; readonly heap: { used: number; limit: number } }
  | { readonly type: 'log'; readonly line: string };

const LEVELS: Record<number, 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/** Starts the simulator worker; time does not move until `drive`. */
export async function startIsolatedSim(o: IsolatedSimOptions): Promise<IsolatedSim> {
  const apiKey = randomBytes(16).toString('hex');
  o.redactor.add(apiKey);
  const startAt = o.speed === 'max' ? MAX_SPEED_START_AT : ((Math.floor(Date.now() / 1000) * 1000) as UnixMs);
  const clock = manualClock(startAt);
  const maxHeapMb = o.maxHeapMb ?? DEFAULT_SIM_HEAP_MB;
  let worker: Worker | undefined;
  let latest: HubStats | undefined;
  let heap: SimHeap | undefined;
  let ackedTo = clock.now() as number;
  let postedTo = clock.now() as number;
  let statsAsked = false;
  let restarts = 0;
  let stopping = false;
  let driver: LockstepDriver | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let port = 0;

  const post = (m: SimWorkerRequest): void => worker?.postMessage(m);
  const forward = (line: string): void => {
    try {
      const { level, msg, time: _t, ...fields } = JSON.parse(line) as { level: number; msg?: string; time?: number } & Record<string, unknown>;
      o.log[LEVELS[level] ?? 'info'](fields, msg ?? '');
    } catch (e) {
      o.log.warn({ err: describeError(e) }, 'a simulator worker log line did not parse');
    }
  };

  const spawn = (): Promise<Ready> =>
    new Promise((resolve, reject) => {
      const data: SimWorkerData = {
        seed: o.seed,
        apiKey,
        startAt: clock.now(),
        port,
        logLevel: o.log.level,
        testHooks: o.testHooks === true,
        market: o.market ?? DAEMON_SIM_MARKET,
      };
      const w = startModuleWorker(siblingModule('sim-worker', import.meta.url), { ...data }, { resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } });
      worker = w;
      let ready = false;
      w.on('message', (m: FromWorker) => {
        if (m.type === 'log') {
          forward(m.line);
          return;
        }
        heap = { usedBytes: m.heap.used, limitBytes: m.heap.limit };
        if (m.type === 'ready') {
          ready = true;
          latest = m.stats;
          ackedTo = postedTo = clock.now();
          resolve(m);
        } else if (m.type === 'ack') {
          ackedTo = m.to;
          latest = m.stats;
          driver?.poke();
        } else {
          statsAsked = false;
          latest = m.stats;
          driver?.poke();
        }
      });
      let failure: unknown;
      w.on('error', (e) => {
        failure = e;
        const oom = (e as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
        o.log.error({ err: describeError(e), heapLimitMb: maxHeapMb, oom }, oom ? 'the simulator outgrew its heap limit' : 'the simulator worker failed');
      });
      w.on('exit', (code) => {
        if (worker === w) worker = undefined;
        latest = undefined;
        statsAsked = false;
        if (!ready) {
          const why = failure === undefined ? `exit code ${code}` : describeError(failure);
          reject(
            new ChainpilotError(
              'SIM_WORKER_FAILED',
              `the simulator worker ended before it served (${why}); a heap limit of ${maxHeapMb} MB may be too small to start one`,
              {
                retry: 'retryable',
                context: { code, heapLimitMb: maxHeapMb },
                ...(failure === undefined ? {} : { cause: failure }),
              },
            ),
          );
          return;
        }
        if (!stopping) scheduleRestart(code);
      });
    });

  const scheduleRestart = (code: number): void => {
    restarts++;
    const delayMs = Math.min(30_000, 500 * 2 ** Math.min(6, restarts - 1));
    o.log.warn({ code, restarts, delayMs, port }, 'the simulator worker ended: restarting it on the same port; its deployments see a feed loss');
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (stopping) return;
      spawn().then(
        () => o.log.info({ restarts, at: clock.now() }, 'the simulator worker restarted (a new market, at the run clock)'),
        (e: unknown) => {
          o.log.error({ err: describeError(e) }, 'restarting the simulator worker failed');
          if (!stopping) scheduleRestart(-1);
        },
      );
    }, delayMs);
  };

  const first = await spawn();
  port = Number(new URL(first.urls.base).port);

  // The driver moves this clock; each step goes to the worker (see the module comment), once all its
  // timers fired here (a step in slices reaches the worker when its last slice is done).
  const driven: ManualClock = {
    ...clock,
    advanceTo(to) {
      driven.advanceToUntil(to, () => false);
    },
    advanceToUntil(to, stop) {
      if (!clock.advanceToUntil(to, stop)) return false;
      postedTo = to;
      post({ type: 'advance', to });
      return true;
    },
  };

  const life = createLifecycle(
    {
      name: 'simulator worker',
      async halt() {
        stopping = true;
        driver?.stop();
        if (restartTimer) clearTimeout(restartTimer);
        await worker?.terminate();
      },
      report: () => undefined,
      notReady: () => (worker === undefined ? [`the simulator worker is restarting (${restarts} restarts)`] : []),
    },
    // the halt's grace on wall time: the run clock stands still once the driver stopped
    { log: o.log, clock, defaultDrainMs: 0, running: true, haltClock: systemClock() },
  );
  return {
    ...lifecycleMembers(life),
    urls: first.urls,
    apiKey,
    clock,
    speed: o.speed,
    stats: () => latest,
    heap: () => heap,
    restarts: () => restarts,
    drive(idle, onForced) {
      if (driver) return;
      // 'later': an answer of the worker is awaited, and its message pokes the driver
      const idleNow = (): boolean | 'later' => {
        // no simulator (restarting): nothing is unsent, the run's time goes on
        if (!worker || latest === undefined) return worker === undefined;
        if (ackedTo < postedTo) return 'later';
        const now = idle(latest, restarts);
        if (now === true) return true;
        // Frames the last answer counts are still on the socket: asking the worker again would
        // only cost both threads a message (at a hundred deployments, thousands a second).
        if (now === 'wire') return false;
        if (!statsAsked) {
          statsAsked = true;
          post({ type: 'stats' });
        }
        return 'later';
      };
      driver = createLockstepDriver({
        clock: driven,
        speed: o.speed,
        idle: idleNow,
        onForced,
        sliceMs: o.sliceMs ?? STEP_SLICE_MS,
        minStepRealMs: MIN_STEP_REAL_MS,
      });
      driver.start();
    },
    allocate: () => post({ type: 'allocate' }),
  };
}

/** The lockstep test of the connection on an isolated simulator, from the counters of the worker's last answer. */
export function isolatedIdle(owned: OwnedConnection): { idle: (stats: HubStats, restarts: number) => IsolatedIdle; resync: () => void } {
  let lost = 0;
  let last: HubStats | undefined;
  // frames received from the current worker: counted from the client's total when it started
  let generation = 0;
  let base = 0;
  const received = (): number => owned.client.framesReceived() - base;
  return {
    idle(stats, restarts) {
      if (restarts !== generation) {
        generation = restarts;
        base = owned.client.framesReceived();
        lost = 0;
      }
      last = stats;
      // what is in flight arrives without asking the worker again
      if (owned.client.state === 'connecting' || owned.rest.inFlight() > 0) return 'wire';
      // waiting out its reconnect backoff (a restarted simulator): nothing can reach it, time goes on
      if (owned.client.state !== 'open') return true;
      if (received() + lost < stats.framesSent) return 'wire';
      return stats.rooms + stats.refusedRooms >= owned.client.rooms().length;
    },
    resync() {
      if (last) lost = Math.max(lost, last.framesSent - received());
    },
  };
}
