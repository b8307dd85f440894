/**
 * Per-position exit management: multi-level partial take profit, stop loss, trailing stop, time
 * stop and exit on a safety signal. It decides; the engine places the sells through the risk gate.
 */
import { cappedBackoff, decimal, type Clock, type Decimal, type TimerHandle, type UnixMs } from '../../core/index.js';
import type { SafetySignalKind } from '../events/events.js';
import type { ExitRules } from './exit-rules.js';
import { priceOf, type Position } from '../market/portfolio.js';
import { comparePrice, HighMark, isAbove, looseKeptLevel, multipleLevel, priceLevel, stopLevel, tickLevel, type PriceLevel } from './price-levels.js';
import { solPerToken } from '../events/price-tick.js';
import type { PriceTick } from '../events/events.js';

export interface ExitOrder {
  readonly strategyId: string;
  readonly mint: string;
  readonly fractionBps: number;
  readonly reason: string;
  /** Take-profit level index, or -1 for a full exit. */
  readonly level: number;
}

interface ExitState {
  readonly strategyId: string;
  readonly mint: string;
  /** The average entry price as a level: its double at once, its Decimal only when something reads it. */
  entry: PriceLevel;
  entryZero: boolean;
  /** What the entry was worked out from (the position's buys): a fill that leaves them as they were (a sell) keeps the levels. */
  boughtLamports: bigint;
  boughtRaw: bigint;
  highest: PriceLevel;
  /** Thresholds from entry and high (undefined: rule off); the trailing level is worked out when first compared with (null: not yet). */
  stopAt: PriceLevel | undefined;
  trailAt: PriceLevel | undefined | null;
  takeAt: PriceLevel[];
  readonly fired: Set<number>;
  exiting: boolean;
  timer: TimerHandle | undefined;
  timeStopAt: UnixMs | undefined;
  /** The time stop fell due: it is placed as soon as no other exit of the position is in flight. */
  timeStopDue: boolean;
  /** The exit in flight is the time stop's own sell. */
  timeStopInFlight: boolean;
  /** Time-stop sells that did not land, for the retry's backoff. */
  timeStopFailures: number;
}

/** The exit levels a tracked position has right now (exact prices, SOL per whole token). */
export interface ExitLevels {
  /** Average entry price the levels are measured from. */
  readonly entry: Decimal;
  /** Take-profit levels not yet fired: index (0-based), multiple of entry and price. */
  readonly takeProfit: readonly { readonly level: number; readonly multiple: string; readonly price: Decimal }[];
  readonly stopLoss: Decimal | undefined;
  /** The trailing stop's level, only while armed (the high since entry is above entry). */
  readonly trailing: Decimal | undefined;
  /** When the time stop is due, on the run clock. */
  readonly timeStopAt: UnixMs | undefined;
}

export interface ExitManager {
  /** The levels of the position with this key, undefined when it is not tracked. Read-only. */
  levels(key: string): ExitLevels | undefined;
  /** After each fill: starts tracking a newly opened position, forgets a closed one. */
  positionChanged(p: Position): void;
  /**
   * Orders triggered by a new price of `mint` for the given open positions: an exact decimal string,
   * or a price tick (compared on its wire number; its exact string is read only for a price that
   * close to a level, or once it set a high that a level is then worked out from).
   */
  onPrice(positions: readonly Position[], price: string | PriceTick): readonly ExitOrder[];
  onSafety(positions: readonly Position[], signal: SafetySignalKind, value: number): ExitOrder[];
  /** The exit sell was placed (`ok`) or not; a failed or denied sell re-arms its level. */
  settled(key: string, level: number, landed: boolean): void;
  /** Number of tracked positions. */
  size(): number;
  stop(): void;
}

/** A time-stop sell that did not land is placed again after this backoff on the run clock (or at the next price tick, whichever comes first). */
export const TIME_STOP_RETRY_BASE_MS = 1_000;
export const TIME_STOP_RETRY_CAP_MS = 60_000;

const SAFETY_LIMIT: Partial<Record<SafetySignalKind, keyof NonNullable<ExitRules['exitOnSafety']>>> = {
  bundlers: 'maxBundlerPct',
  sniper: 'maxSniperPct',
  insider: 'maxInsiderPct',
  top10: 'maxTop10Pct',
  dev_holding: 'maxDevHoldingPct',
};

/** The average entry price of a position (SOL per whole token) as exact text. */
const entryOf = (p: Position): string => priceOf(p.boughtLamports, p.boughtRaw, p.decimals);

/** A new entry price (exact text) and the levels measured from it, in bigints (bignumber.js parses the entry only if read). */
function setEntry(st: ExitState, text: string, rules: ExitRules | undefined): void {
  st.entry = tickLevel(text);
  st.entryZero = !/[1-9]/.test(text);
  st.stopAt = rules?.stopLossBps === undefined ? undefined : stopLevel(text, rules.stopLossBps);
  st.takeAt = (rules?.takeProfit ?? []).map((l) => multipleLevel(text, l.multiple));
}

/** A new high since entry; the trailing level is worked out again when next compared with. */
function setHigh(st: ExitState, high: PriceLevel): void {
  st.highest = high;
  st.trailAt = null;
}

/** The trailing stop's level below the high (undefined: rule off). */
function trailOf(st: ExitState, rules: ExitRules): PriceLevel | undefined {
  if (st.trailAt === null) {
    st.trailAt = rules.trailingStopBps === undefined ? undefined : looseKeptLevel(st.highest, rules.trailingStopBps);
  }
  return st.trailAt;
}

/** Adds a full exit of the position to `out` (made when undefined), unless one is already in flight. */
function full(out: ExitOrder[] | undefined, p: Position, reason: string, st: ExitState): ExitOrder[] | undefined {
  if (st.exiting) return out;
  st.exiting = true;
  (out ??= []).push({ strategyId: p.strategyId, mint: p.mint, fractionBps: 10_000, reason, level: -1 });
  return out;
}

const NO_ORDERS: readonly ExitOrder[] = Object.freeze([]);

/** The price `onPrice` is comparing, and its exact value once a comparison needed it: one per manager, no closure per tick. */
class ComparedPrice {
  private tick: string | PriceTick | undefined = undefined;
  exact: Decimal | undefined = undefined;
  readonly read = (): Decimal => (this.exact ??= decimal(typeof this.tick === 'string' ? this.tick : this.tick!.price, 'price'));
  set(tick: string | PriceTick | undefined): void {
    this.tick = tick;
    this.exact = undefined;
  }
}

/**
 * `rulesFor(strategyId)` gives each strategy's rules; `onTimeStop(order)` is called by the clock
 * when a time stop is due.
 */
export function createExitManager(clock: Clock, rulesFor: (strategyId: string) => ExitRules | undefined, onTimeStop: (order: ExitOrder) => void): ExitManager {
  const states = new Map<string, ExitState>();
  const compared = new ComparedPrice();
  // After stop(), fills can still arrive while the executor drains in-flight intents: they update
  // the portfolio but must not arm exit rules (a time-stop timer would outlive the engine).
  let stopped = false;
  /** The reason of a time-stop sell (the decision log's and the report's `time stop` rule read it). */
  const timeStopReason = (strategyId: string): string => `time stop after ${rulesFor(strategyId)?.timeStopMs ?? 0} ms`;
  const timeStopOrder = (st: ExitState): ExitOrder => ({
    strategyId: st.strategyId,
    mint: st.mint,
    fractionBps: 10_000,
    reason: timeStopReason(st.strategyId),
    level: -1,
  });
  /**
   * Arms the time stop's timer. When it fires the time stop is due; it is placed then unless another
   * exit of the position is in flight, in which case `settled` places it as soon as that exit did
   * not close the position (a token with no more ticks must still be sold).
   */
  const armTimeStop = (key: string, st: ExitState, delayMs: number): void => {
    st.timer = clock.setTimeout(() => {
      st.timer = undefined;
      if (states.get(key) !== st) return;
      st.timeStopDue = true;
      if (st.exiting) return;
      st.exiting = true;
      st.timeStopInFlight = true;
      onTimeStop(timeStopOrder(st));
    }, delayMs);
  };
  /** After an exit that left the position open: place a due time stop again (at once if it was another exit, after a backoff if it was its own sell). */
  const retryTimeStop = (key: string, st: ExitState): void => {
    const own = st.timeStopInFlight;
    st.timeStopInFlight = false;
    if (!st.timeStopDue || st.exiting || st.timer !== undefined || stopped) return;
    const delay = own ? cappedBackoff(st.timeStopFailures++, TIME_STOP_RETRY_BASE_MS, TIME_STOP_RETRY_CAP_MS) : 0;
    armTimeStop(key, st, delay);
  };

  return {
    levels(key) {
      const st = states.get(key);
      if (!st) return undefined;
      const rules = rulesFor(st.strategyId);
      const takeProfit = (rules?.takeProfit ?? []).flatMap((l, i) => {
        const at = st.takeAt[i];
        return st.fired.has(i) || at === undefined ? [] : [{ level: i, multiple: l.multiple, price: at.exact }];
      });
      const trail = rules === undefined ? undefined : trailOf(st, rules);
      return {
        entry: st.entry.exact,
        takeProfit,
        stopLoss: st.stopAt?.exact,
        trailing: trail !== undefined && isAbove(st.highest, st.entry) ? trail.exact : undefined,
        timeStopAt: st.timeStopAt,
      };
    },
    positionChanged(p) {
      if (stopped) return;
      const st = states.get(p.key);
      if (p.tokenRaw === 0n) {
        if (st?.timer) clock.clearTimeout(st.timer);
        states.delete(p.key);
        return;
      }
      const rules = rulesFor(p.strategyId);
      if (st) {
        if (st.boughtLamports === p.boughtLamports && st.boughtRaw === p.boughtRaw) return;
        st.boughtLamports = p.boughtLamports;
        st.boughtRaw = p.boughtRaw;
        setEntry(st, entryOf(p), rules);
        return;
      }
      const entry = entryOf(p);
      const fresh: ExitState = {
        strategyId: p.strategyId,
        mint: p.mint,
        entry: tickLevel(entry),
        entryZero: false,
        boughtLamports: p.boughtLamports,
        boughtRaw: p.boughtRaw,
        highest: tickLevel(entry),
        stopAt: undefined,
        trailAt: undefined,
        takeAt: [],
        fired: new Set(),
        exiting: false,
        timer: undefined,
        timeStopAt: undefined,
        timeStopDue: false,
        timeStopInFlight: false,
        timeStopFailures: 0,
      };
      setEntry(fresh, entry, rules);
      setHigh(fresh, tickLevel(entry));
      states.set(p.key, fresh);
      if (rules?.timeStopMs !== undefined) {
        fresh.timeStopAt = (p.openedAt + rules.timeStopMs) as UnixMs;
        armTimeStop(p.key, fresh, Math.max(0, fresh.timeStopAt - clock.now()));
      }
    },
    onPrice(positions, tick) {
      // the common answer (nothing fires) allocates nothing: no list, no closure per tick
      let out: ExitOrder[] | undefined;
      const price = typeof tick === 'string' ? Number(tick) : solPerToken(tick);
      compared.set(tick);
      for (const p of positions) {
        const st = states.get(p.key);
        const rules = rulesFor(p.strategyId);
        if (!st || !rules || p.boughtRaw === 0n) continue;
        const newHigh = comparePrice(price, compared.read, st.highest) > 0;
        if (newHigh) setHigh(st, compared.exact === undefined ? new HighMark(price, tick) : priceLevel(compared.exact));
        if (st.entryZero) continue;
        if (st.timeStopDue) {
          // The time stop is due and its sell has not gone through: a tick places it now (its retry timer, if any, is dropped).
          if (!st.exiting) {
            if (st.timer !== undefined) clock.clearTimeout(st.timer);
            st.timer = undefined;
            st.timeStopInFlight = true;
          }
          out = full(out, p, timeStopReason(p.strategyId), st);
          continue;
        }
        if (st.stopAt !== undefined && comparePrice(price, compared.read, st.stopAt) <= 0) {
          if (!st.exiting) out = full(out, p, `stop loss ${rules.stopLossBps!} bps below entry ${st.entry.exact.toFixed()}`, st);
          continue;
        }
        // a price that just set the high is above a trailing level any distance below it
        const trailAt = newHigh && (rules.trailingStopBps ?? 0) > 0 ? undefined : trailOf(st, rules);
        if (trailAt !== undefined && comparePrice(price, compared.read, trailAt) <= 0 && isAbove(st.highest, st.entry)) {
          if (!st.exiting) out = full(out, p, `trailing stop ${rules.trailingStopBps!} bps below high ${st.highest.exact.toFixed()}`, st);
          continue;
        }
        if (st.exiting) continue;
        const takes = rules.takeProfit ?? [];
        for (let i = 0; i < takes.length; i++) {
          const lvl = takes[i]!;
          if (st.fired.has(i) || st.exiting) continue;
          const at = st.takeAt[i];
          if (at !== undefined && comparePrice(price, compared.read, at) >= 0) {
            st.fired.add(i);
            if (lvl.sellBps >= 10_000) st.exiting = true;
            (out ??= []).push({
              strategyId: p.strategyId,
              mint: p.mint,
              fractionBps: lvl.sellBps,
              reason: `take profit ${lvl.multiple}x (level ${i + 1})`,
              level: i,
            });
          }
        }
      }
      compared.set(undefined);
      return out ?? NO_ORDERS;
    },
    onSafety(positions, signal, value) {
      const out: ExitOrder[] = [];
      const field = SAFETY_LIMIT[signal];
      if (!field) return out;
      for (const p of positions) {
        const st = states.get(p.key);
        const max = rulesFor(p.strategyId)?.exitOnSafety?.[field];
        if (!st || max === undefined || value <= max) continue;
        full(out, p, `safety exit: ${signal} ${value} above ${max}`, st);
      }
      return out;
    },
    settled(key, level, landed) {
      const st = states.get(key);
      if (!st) return; // the position closed (or is not tracked)
      if (landed) {
        // a full exit that landed and left tokens (more arrived while it was in flight): the position is open again for every rule
        if (level < 0) {
          st.exiting = false;
          retryTimeStop(key, st);
        }
        return;
      }
      if (level >= 0) {
        st.fired.delete(level);
        // a partial take profit never marked the position exiting: a full exit in flight beside it still is
        if ((rulesFor(st.strategyId)?.takeProfit?.[level]?.sellBps ?? 0) < 10_000) return;
      }
      st.exiting = false;
      retryTimeStop(key, st);
    },
    size: () => states.size,
    stop() {
      stopped = true;
      for (const st of states.values()) if (st.timer) clock.clearTimeout(st.timer);
      states.clear();
    },
  };
}
