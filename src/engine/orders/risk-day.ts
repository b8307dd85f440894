/**
 * Durable risk state: the risk day (a configurable boundary, UTC midnight by default), the equity
 * at the start of the day, the daily-loss halt and the kill switch. The day-start equity is taken
 * AT the boundary by a timer on the run clock (not at the first buy check of the day), and every
 * change is written through a {@link RiskStateStore} so that a restart restores the halt and the
 * kill switch (the SQLite deployment store implements it; paper runs without a store keep it in
 * memory).
 */
import { silentLogger, type Clock, type Logger, type TimerHandle, type UnixMs } from '../../core/index.js';

export const DAY_MS = 86_400_000;

/** What the store keeps of the risk state. */
export interface PersistedRiskState {
  /** Start of the risk day this state belongs to (a boundary instant). */
  readonly dayStartedAt: UnixMs;
  readonly dayStartEquityLamports: bigint;
  /** True once the daily-loss limit tripped in this risk day. */
  readonly dailyHalted: boolean;
  /** Reason of the kill switch, undefined when it is off. Not tied to a day. */
  readonly killReason: string | undefined;
}

/** The port the engine persists risk state through (synchronous: one small write per change). */
export interface RiskStateStore {
  load(): PersistedRiskState | undefined;
  save(state: PersistedRiskState): void;
}

/** A store that lives as long as the process (paper runs, tests). */
export function memoryRiskStateStore(initial?: PersistedRiskState): RiskStateStore {
  let state = initial;
  return {
    load: () => state,
    save(s) {
      state = s;
    },
  };
}

/** Milliseconds after UTC midnight of a "HH:MM" boundary (validated by the config schema). */
export function dayBoundaryOffsetMs(hhmm: string): number {
  const [h, m] = hhmm.split(':');
  return (Number(h) * 60 + Number(m)) * 60_000;
}

/** Start of the risk day containing `at`, for a boundary `offsetMs` after UTC midnight. */
export function dayStartOf(at: number, offsetMs: number): UnixMs {
  return (Math.floor((at - offsetMs) / DAY_MS) * DAY_MS + offsetMs) as UnixMs;
}

export interface RiskDayOptions {
  /** Boundary of the risk day in milliseconds after UTC midnight (0 = UTC midnight). */
  readonly boundaryOffsetMs?: number;
  /** With a clock, the day rolls on a timer at the boundary; without one, at the next check. */
  readonly clock?: Clock;
  /** Equity now, read at the boundary (the engine's portfolio). */
  readonly equity?: () => bigint;
  readonly store?: RiskStateStore;
  readonly log?: Logger;
}

export interface RiskDay {
  /** Loads the persisted state (kill switch always; day-start equity and halt when the day is still the same) and arms the boundary timer. */
  start(): void;
  stop(): void;
  /** Equity at the start of the risk day containing `at`; rolls the day first when `at` is past the boundary (`equityNow` then becomes the new day-start equity). */
  dayStartEquity(at: UnixMs, equityNow: bigint): bigint;
  halted(at: UnixMs): boolean;
  /** Marks the daily-loss halt for the risk day containing `at` (persisted). */
  halt(at: UnixMs): void;
  /** Turns the kill switch on; `persist: false` for a switch that lives in the deployment file. */
  kill(reason: string, options?: { readonly persist?: boolean }): void;
  /** Clears the persisted kill switch (a switch set in the deployment file stays on). */
  unkill(): void;
  readonly killReason: string | undefined;
  /** The current state, for status and the store. */
  snapshot(): PersistedRiskState;
}

/** Creates the risk day; nothing is loaded or scheduled until `start()`. */
export function createRiskDay(o: RiskDayOptions = {}): RiskDay {
  const offset = o.boundaryOffsetMs ?? 0;
  const store = o.store ?? memoryRiskStateStore();
  const log = o.log ?? silentLogger();
  let dayStartedAt: UnixMs | undefined;
  let dayStartEquity = 0n;
  let haltedDay: UnixMs | undefined;
  let killReason: string | undefined;
  let configKill: string | undefined;
  let timer: TimerHandle | undefined;
  let running = false;
  /** Set once the store was read: writes before that would overwrite the saved day. */
  let loaded = false;
  /** kill/unkill called before start: that choice wins over the saved switch. */
  let killDecided = false;

  const snapshot = (): PersistedRiskState => ({
    dayStartedAt: (dayStartedAt ?? 0) as UnixMs,
    dayStartEquityLamports: dayStartEquity,
    dailyHalted: haltedDay !== undefined && haltedDay === dayStartedAt,
    killReason,
  });
  const save = (): void => {
    if (loaded) store.save(snapshot());
  };

  const roll = (start: UnixMs, equity: bigint): void => {
    const lifted = haltedDay !== undefined && haltedDay !== start;
    dayStartedAt = start;
    dayStartEquity = equity;
    if (lifted) haltedDay = undefined;
    save();
    log.info({ dayStartedAt: start, dayStartEquityLamports: equity.toString(), haltLifted: lifted }, 'risk day started');
  };

  const arm = (): void => {
    const clock = o.clock;
    if (!clock || !running || dayStartedAt === undefined) return;
    const next = dayStartedAt + DAY_MS;
    timer = clock.setTimeout(() => {
      timer = undefined;
      if (!running) return;
      roll(dayStartOf(clock.now(), offset), o.equity ? o.equity() : dayStartEquity);
      arm();
    }, next - clock.now());
  };

  return {
    start() {
      if (running) return;
      running = true;
      const saved = store.load();
      loaded = true;
      if (!killDecided) killReason = saved?.killReason;
      const now = o.clock?.now();
      if (now === undefined) return;
      const today = dayStartOf(now, offset);
      if (saved && saved.dayStartedAt === today) {
        dayStartedAt = today;
        dayStartEquity = saved.dayStartEquityLamports;
        haltedDay = saved.dailyHalted ? today : undefined;
        save();
      } else {
        // A new day since the last run (or a first start): the equity at start is the best known.
        roll(today, o.equity ? o.equity() : 0n);
      }
      if (killReason !== undefined) log.warn({ reason: killReason }, 'kill switch restored from the store: new buys are denied');
      if (haltedDay !== undefined) log.warn({ dayStartedAt }, 'daily-loss halt restored from the store: buys stay halted until the next day boundary');
      arm();
    },
    stop() {
      running = false;
      if (timer && o.clock) o.clock.clearTimeout(timer);
      timer = undefined;
    },
    dayStartEquity(at, equityNow) {
      const start = dayStartOf(at, offset);
      if (dayStartedAt === undefined || start > dayStartedAt) roll(start, equityNow);
      return dayStartEquity;
    },
    halted: (at) => haltedDay !== undefined && haltedDay === dayStartOf(at, offset),
    halt(at) {
      haltedDay = dayStartOf(at, offset);
      dayStartedAt ??= haltedDay;
      save();
    },
    kill(reason, options) {
      if (options?.persist === false) {
        configKill = reason;
        return;
      }
      killReason = reason;
      if (!loaded) killDecided = true;
      save();
    },
    unkill() {
      killReason = undefined;
      if (!loaded) killDecided = true;
      save();
    },
    get killReason() {
      return killReason ?? configKill;
    },
    snapshot,
  };
}
