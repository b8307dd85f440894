/**
 * Time bars per token (`ctx.bars(mint, interval)`): OHLCV from the swaps and price ticks the engine
 * dispatches, on the run clock, with streaming indicators (EMA, RSI, ATR from `trading-signals`) over
 * the closed bars. An interval is built from the first call that asks for it, for every token from
 * then on (ask in `onStart` to have bars from the run's start). Memory is bounded: the last
 * `MAX_BARS` closed bars per series, `MAX_BAR_TOKENS` tokens per interval (least recently updated
 * dropped first), `MAX_BAR_INTERVALS` intervals and `MAX_INDICATORS` indicators per series.
 *
 * Prices stay exact where they are money: a bar's open, high, low and close are the exact decimal
 * strings of the ticks and swaps that set them (a swap's price is its SOL over its token amount),
 * and its volume is lamports. Indicators are signals: numbers, as `trading-signals` computes them.
 */
import { ATR, EMA, RSI } from 'trading-signals';
import { ChainpilotError, LAMPORTS_PER_SOL, parseDuration, type Lamports, type UnixMs } from '../../core/index.js';
import { plainDecimalParts, pow10, quotientString } from '../../core/exact-ratio.js';
import type { PriceTick, SwapTraded } from '../events/events.js';
import { solPerToken } from '../events/price-tick.js';

/** Closed bars kept per series. */
export const MAX_BARS = 512;
/** Tokens with bars, per interval. */
export const MAX_BAR_TOKENS = 1_024;
/** Distinct intervals one run builds. */
export const MAX_BAR_INTERVALS = 8;
/** Distinct indicators (kind and period) per series. */
export const MAX_INDICATORS = 16;
/** Bar intervals: whole seconds from 1 s to 1 d. */
const MIN_INTERVAL_MS = 1_000;
const MAX_INTERVAL_MS = 86_400_000;

/** One time bar. Prices are SOL per whole token, exact decimal strings. */
export interface Bar {
  /** Start of the bar's interval (a multiple of the interval on the run clock); it covers `[openAt, openAt + interval)`. */
  readonly openAt: UnixMs;
  readonly open: string;
  readonly high: string;
  readonly low: string;
  readonly close: string;
  /** SOL traded in the bar's swaps, in lamports (swaps that carry their SOL size). */
  readonly volumeLamports: Lamports;
  /** Swaps and price ticks that went into the bar. */
  readonly trades: number;
  readonly ticks: number;
}

/** The bars of one token at one interval (`ctx.bars`), and indicators over their closes. */
export interface BarSeries {
  readonly mint: string;
  readonly intervalMs: number;
  /** Closed bars, oldest first (at most 512), as of the first read of this property. Intervals with no swap or tick have no bar. */
  readonly closed: readonly Bar[];
  /** The bar of the current interval, when a swap or tick came in it (as of the first read of this property). */
  readonly current: Bar | undefined;
  /** EMA of the closes of the closed bars over `period` bars; undefined until `period` bars closed. */
  ema(period: number): number | undefined;
  /** RSI (Wilder) of the closes over `period` bars, 0..100; undefined until enough bars closed. */
  rsi(period: number): number | undefined;
  /** ATR (Wilder) over `period` closed bars, in SOL per token; undefined until enough bars closed. */
  atr(period: number): number | undefined;
}

/** Something with an exact price string: a price tick, or a swap's SOL over its tokens (written out when read). */
interface Priced {
  readonly price: string;
}

class SwapPrice implements Priced {
  #text: string | undefined;
  constructor(
    private readonly lamports: bigint,
    private readonly digits: bigint,
    private readonly scale: number,
  ) {}
  get price(): string {
    // (lamports / 1e9) / (digits / 10^scale), to 40 places as Decimal divides
    return (this.#text ??= quotientString(this.lamports * pow10(this.scale), this.digits * LAMPORTS_PER_SOL, 0));
  }
}

interface Building {
  openAt: number;
  open: Priced;
  high: Priced;
  low: Priced;
  close: Priced;
  highN: number;
  lowN: number;
  closeN: number;
  volume: bigint;
  trades: number;
  ticks: number;
}

/** A closed bar and its numbers (for the indicators). */
interface Closed {
  readonly bar: Bar;
  readonly high: number;
  readonly low: number;
  readonly close: number;
}

interface Indicator {
  /** Closed bars fed so far (of `Series.count`). */
  fed: number;
  add(c: Closed): void;
  value(): number | undefined;
}

interface Series {
  closed: Closed[];
  /** Bars closed since the series began (the indicators' cursor). */
  count: number;
  building: Building | undefined;
  indicators: Map<string, Indicator>;
}

const snapshot = (b: Building): Bar => ({
  openAt: b.openAt as UnixMs,
  open: b.open.price,
  high: b.high.price,
  low: b.low.price,
  close: b.close.price,
  volumeLamports: b.volume as Lamports,
  trades: b.trades,
  ticks: b.ticks,
});

function bad(what: string, got: unknown, fix: string): ChainpilotError {
  return new ChainpilotError('STRATEGY_BAD_ARGUMENT', `${what}: got ${String(got)}; ${fix}`, { retry: 'not_retryable', context: { what } });
}

/** Milliseconds of a bar interval (`'1m'`, `'30s'`, or ms), whole seconds from 1 s to 1 d; else STRATEGY_BAD_ARGUMENT. */
export function barIntervalMs(interval: string | number): number {
  const ms = parseDuration(interval);
  if (ms === undefined || ms < MIN_INTERVAL_MS || ms > MAX_INTERVAL_MS || ms % 1_000 !== 0)
    throw bad('ctx.bars interval', JSON.stringify(interval), "pass whole seconds from 1s to 1d, such as '15s', '1m', '5m', '1h' (or the milliseconds)");
  return ms;
}

function checkPeriod(what: string, period: number): void {
  if (!Number.isSafeInteger(period) || period < 1 || period > MAX_BARS) throw bad(what, period, `pass an integer number of bars from 1 to ${MAX_BARS}`);
}

export interface MarketBars {
  /** Feeds a swap or a price tick at `now` (the run clock) into every interval asked for so far. */
  observe(ev: SwapTraded | PriceTick, now: UnixMs): void;
  /** The series of `mint` at `interval` at `now`; the first call for an interval starts building it. */
  series(mint: string, interval: string | number, now: UnixMs): BarSeries;
  /** Whether any interval is being built (the dispatcher skips `observe` otherwise). */
  readonly active: boolean;
}

export function createMarketBars(): MarketBars {
  /** Per interval, the series of each token in order of their last update (least recent first). */
  const books = new Map<number, Map<string, Series>>();

  const roll = (s: Series, intervalMs: number, now: number): void => {
    const b = s.building;
    if (b === undefined || now < b.openAt + intervalMs) return;
    s.closed.push({ bar: snapshot(b), high: b.highN, low: b.lowN, close: b.closeN });
    if (s.closed.length > MAX_BARS) s.closed.shift();
    s.count++;
    s.building = undefined;
  };

  const put = (intervalMs: number, book: Map<string, Series>, mint: string, now: number, px: Priced, n: number, volume: bigint | undefined): void => {
    let s = book.get(mint);
    if (s === undefined) {
      s = { closed: [], count: 0, building: undefined, indicators: new Map() };
      if (book.size >= MAX_BAR_TOKENS) book.delete(book.keys().next().value!);
    } else book.delete(mint);
    book.set(mint, s);
    roll(s, intervalMs, now);
    const b = s.building;
    if (b === undefined) {
      s.building = {
        openAt: now - (now % intervalMs),
        open: px,
        high: px,
        low: px,
        close: px,
        highN: n,
        lowN: n,
        closeN: n,
        volume: volume ?? 0n,
        trades: volume === undefined ? 0 : 1,
        ticks: volume === undefined ? 1 : 0,
      };
      return;
    }
    if (n > b.highN) {
      b.high = px;
      b.highN = n;
    }
    if (n < b.lowN) {
      b.low = px;
      b.lowN = n;
    }
    b.close = px;
    b.closeN = n;
    if (volume === undefined) b.ticks++;
    else {
      b.volume += volume;
      b.trades++;
    }
  };

  const indicator = (s: Series, key: string, make: () => Indicator): number | undefined => {
    let ind = s.indicators.get(key);
    if (ind === undefined) {
      if (s.indicators.size >= MAX_INDICATORS)
        throw bad('ctx.bars indicators', s.indicators.size, `a series keeps at most ${MAX_INDICATORS} indicators (kind and period)`);
      ind = make();
      s.indicators.set(key, ind);
    }
    // the bars closed since the last read; those dropped by the bound before it was asked for never come
    const from = Math.max(0, s.closed.length - (s.count - ind.fed));
    for (let i = from; i < s.closed.length; i++) ind.add(s.closed[i]!);
    ind.fed = s.count;
    return ind.value();
  };

  const view = (mint: string, intervalMs: number, s: Series | undefined): BarSeries => {
    const series = s ?? { closed: [], count: 0, building: undefined, indicators: new Map<string, Indicator>() };
    let closed: readonly Bar[] | undefined;
    let current: Bar | undefined | null = null;
    return {
      mint,
      intervalMs,
      // written out when read: a strategy that reads only an indicator copies no bar
      get closed() {
        return (closed ??= series.closed.map((c) => c.bar));
      },
      get current() {
        if (current === null) current = series.building === undefined ? undefined : snapshot(series.building);
        return current;
      },
      ema(period) {
        checkPeriod('ctx.bars(...).ema period', period);
        return indicator(series, `ema:${period}`, () => closes(new EMA(period)));
      },
      rsi(period) {
        checkPeriod('ctx.bars(...).rsi period', period);
        return indicator(series, `rsi:${period}`, () => closes(new RSI(period)));
      },
      atr(period) {
        checkPeriod('ctx.bars(...).atr period', period);
        const atr = new ATR(period);
        return indicator(series, `atr:${period}`, () => ({
          fed: 0,
          add: (c) => void atr.add({ high: c.high, low: c.low, close: c.close }),
          value: () => (atr.isStable ? (atr.getResult() ?? undefined) : undefined),
        }));
      },
    };
  };

  const bars: MarketBars = {
    get active() {
      return books.size > 0;
    },
    observe(ev, now) {
      let px: Priced;
      let n: number;
      let volume: bigint | undefined;
      if (ev.type === 'price') {
        px = ev;
        n = solPerToken(ev);
      } else {
        // a swap prices the token only with both its SOL and its token amount
        const parts = ev.solLamports !== undefined && ev.amount !== undefined ? plainDecimalParts(ev.amount) : undefined;
        if (parts === undefined || parts.digits === 0n || ev.solLamports === undefined) return;
        px = new SwapPrice(ev.solLamports, parts.digits, parts.scale);
        n = Number(ev.solLamports) / 1e9 / (Number(parts.digits) / 10 ** parts.scale);
        volume = ev.solLamports;
      }
      if (!Number.isFinite(n)) return;
      for (const [intervalMs, book] of books) put(intervalMs, book, ev.mint, now, px, n, volume);
    },
    series(mint, interval, now) {
      const intervalMs = barIntervalMs(interval);
      let book = books.get(intervalMs);
      if (book === undefined) {
        if (books.size >= MAX_BAR_INTERVALS)
          throw bad(
            'ctx.bars interval',
            JSON.stringify(interval),
            `a run builds at most ${MAX_BAR_INTERVALS} intervals (${[...books.keys()].join(', ')} ms so far)`,
          );
        books.set(intervalMs, (book = new Map<string, Series>()));
      }
      const s = book.get(mint);
      if (s !== undefined) roll(s, intervalMs, now);
      return view(mint, intervalMs, s);
    },
  };
  return bars;
}

/** An indicator over closes (EMA, RSI): its value once stable. */
function closes(ind: EMA | RSI): Indicator {
  return {
    fed: 0,
    add: (c) => void ind.add(c.close),
    value: () => (ind.isStable ? (ind.getResult() ?? undefined) : undefined),
  };
}
