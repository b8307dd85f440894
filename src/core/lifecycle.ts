/**
 * The one shape of a long-running part (design.md §3): `start`, `stop` with a deadline, `health`,
 * `done`. A deployment handle is one (runtime/deployment-handle.ts); parts that wrap one (the
 * daemon's slots) and parts that are composed into one speak of their state in these terms.
 */

/** What every long-running part says of itself. */
export interface LifecycleHealth {
  /** The part's own state name (`running`, `stopped`, ...). */
  readonly state: string;
  /** True when the part does what it is for now. */
  readonly ready: boolean;
  /** Why not ready (empty when ready). */
  readonly reasons: readonly string[];
}

/** The deadline of a stop: the part drains for at most `drainMs`, then stops at once. */
export interface StopOptions {
  readonly drainMs?: number;
}

/**
 * A long-running part. `start` resolves once it runs (rejects with a coded error otherwise);
 * `stop` is idempotent and resolves with the part's final report once it has stopped, within its
 * deadline; `done` resolves with the same report however the part ended (stopped, or ended by
 * itself).
 */
export interface Lifecycle<Report = void, Health extends LifecycleHealth = LifecycleHealth> {
  start(): Promise<void>;
  stop(options?: StopOptions): Promise<Report>;
  health(): Health;
  done(): Promise<Report>;
}
