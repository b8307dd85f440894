/**
 * The embedded simulator as a deployment's endpoint: started in process on a manual clock that
 * becomes the run's one clock, moved by the lockstep driver (see lockstep-driver.ts), with the
 * Datastream client and REST ports of the run connected to it.
 */
import { randomBytes } from 'node:crypto';
import {
  createLifecycle,
  lifecycleMembers,
  manualClock,
  systemClock,
  type Lifecycle,
  type Logger,
  type ManualClock,
  type Redactor,
  type UnixMs,
} from '../../core/index.js';
import type { SimServiceFactory } from '../../sim/market-port.js';
import { startSimulator, type RunningSimulator } from '../../sim/start-simulator.js';
import { createLockstepDriver, type LockstepDriver } from './lockstep-driver.js';

/**
 * Simulated start time at `--speed max` when none is given, and of a live rehearsal at every speed:
 * a fixed instant, so that two runs with one seed write the same decision log (timestamps included).
 * Other numeric-speed runs (paper, record) start at wall time.
 */
export const MAX_SPEED_START_AT = Date.UTC(2026, 0, 1) as UnixMs;

/** The lockstep test of a consumer, and how it writes off frames lost with a dropped socket. */
export interface LockstepIdle {
  idle(): boolean;
  resync(): void;
  /** True once after a wait of the client's work on the run clock ended (client-work.ts): the step stops there. */
  woke?(): boolean;
}

/** A {@link Lifecycle} built running: `stop` stops the driver, then the simulator. */
export interface EmbeddedSim extends Lifecycle {
  readonly sim: RunningSimulator;
  readonly clock: ManualClock;
  readonly apiKey: string;
  readonly speed: number | 'max';
  /** Starts moving time; `idle` says when the deployment has taken in what was sent. */
  drive(idle: LockstepIdle): void;
}

export interface EmbeddedSimOptions {
  readonly seed: number;
  readonly speed: number | 'max';
  readonly redactor: Redactor;
  readonly log: Logger;
  readonly services?: readonly SimServiceFactory[];
  /** A clock the caller moves (tests, backtests): the runtime never drives it. */
  readonly clock?: ManualClock;
  readonly startAt?: UnixMs;
}

/** Starts the simulator on its own manual clock (not yet moving). */
export async function startEmbeddedSim(o: EmbeddedSimOptions): Promise<EmbeddedSim> {
  const apiKey = randomBytes(16).toString('hex');
  o.redactor.add(apiKey);
  const startAt = o.startAt ?? (o.speed === 'max' ? MAX_SPEED_START_AT : ((Math.floor(Date.now() / 1000) * 1000) as UnixMs));
  const clock = o.clock ?? manualClock(startAt);
  const sim = await startSimulator({ seed: o.seed, clock, apiKey, log: o.log, ...(o.services ? { services: o.services } : {}) });
  let driver: LockstepDriver | undefined;
  const life = createLifecycle(
    {
      name: 'embedded simulator',
      async halt() {
        driver?.stop();
        await sim.stop();
      },
      report: () => undefined,
      notReady: () => sim.health().reasons,
    },
    // the halt's grace on wall time: the run clock stands still once the driver stopped
    { log: o.log, clock, defaultDrainMs: 0, running: true, haltClock: systemClock() },
  );
  return {
    ...lifecycleMembers(life),
    sim,
    clock,
    apiKey,
    speed: o.speed,
    drive(idle) {
      if (o.clock || driver) return;
      driver = createLockstepDriver({
        clock,
        speed: o.speed,
        idle: () => idle.idle(),
        onForced: () => {
          o.log.debug({ forcedSteps: driver?.forcedSteps }, 'lockstep: the client stayed busy past the idle timeout; the simulator clock moved anyway');
          idle.resync();
        },
        ...(idle.woke ? { woke: () => idle.woke?.() === true } : {}),
      });
      driver.start();
    },
  };
}
