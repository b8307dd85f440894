/**
 * Exact price levels of the exit rules (stop loss, take profit, trailing stop), compared with a
 * tick's price on the tick's double first: bignumber.js parses a price only when the doubles tie, and
 * a level derived from a plain decimal text is worked out in bigints, as bignumber.js would give it.
 */
import { plainDecimalParts, plainText, pow10, quotientString } from '../../core/exact-ratio.js';
import { decimal, type Decimal } from '../../core/index.js';

/** An exact price level and its nearest double (the double decides when a price is clearly away from it). */
export interface PriceLevel {
  readonly exact: Decimal;
  readonly approx: number;
}

/** The level of an exact price. */
export const priceLevel = (exact: Decimal): PriceLevel => ({ exact, approx: exact.toNumber() });

/**
 * Sign of `price` − `at`, exact. `price` is the double nearest the tick's exact price (the wire
 * number it was written from) and `at.approx` the double nearest the level; rounding to nearest is
 * monotonic, so when the two doubles differ their order is the exact one. Only equal doubles need
 * the exact decimals: bignumber.js parses the price only for a tick that close to a level.
 */
export function comparePrice(price: number, exactPrice: () => Decimal, at: PriceLevel): number {
  if (at instanceof LooseLevel) {
    // a double within LOOSE_REL_ERROR of the level: the order is certain past that distance
    const d = price - at.approx;
    if (Math.abs(d) > (Math.abs(price) + Math.abs(at.approx)) * LOOSE_REL_ERROR) return d > 0 ? 1 : -1; // false for NaN: the exact path refuses it
    return comparePrice(price, exactPrice, at.level());
  }
  if (price !== at.approx && price === price) return price > at.approx ? 1 : -1; // NaN: the exact path refuses it
  // both sides are finite decimals (decimal() refuses anything else), so never null
  return exactPrice().comparedTo(at.exact) ?? 0;
}

/**
 * Whether level `a` is above level `b`. Levels other than loose ones carry their nearest double, so
 * when the doubles differ their order is the exact one; equal doubles (or a loose level) compare
 * exactly.
 */
export function isAbove(a: PriceLevel, b: PriceLevel): boolean {
  if (a.approx !== b.approx && !(a instanceof LooseLevel) && !(b instanceof LooseLevel)) return a.approx > b.approx;
  return a.exact.gt(b.exact);
}

/** Something that writes an exact price string when asked (a price tick). */
interface PriceText {
  readonly price: string;
}

/**
 * The highest price since entry as a level, from the tick that set it: its double is the tick's
 * wire number and its exact value is parsed from the tick's price string only when something
 * needs it (a rising price sets a new high on many ticks and is compared with none of them). Given
 * the tick, not its string, the string is not even written until then.
 */
export class HighMark implements PriceLevel {
  #exact: Decimal | undefined;
  #text: string | undefined;
  readonly #tick: PriceText | undefined;
  constructor(
    readonly approx: number,
    text: string | PriceText,
  ) {
    if (typeof text === 'string') this.#text = text;
    else this.#tick = text;
  }

  get text(): string {
    return (this.#text ??= this.#tick!.price);
  }

  get exact(): Decimal {
    return (this.#exact ??= decimal(this.text, 'price'));
  }
}

/**
 * Bound on the relative distance between a {@link LooseLevel}'s double and its exact value plus
 * that between a tick's double and its exact price (a few roundings of 2^-53 each: 1e-14 leaves
 * room to spare).
 */
export const LOOSE_REL_ERROR = 1e-14;

/**
 * A level known first as a double computed in floating point (within `LOOSE_REL_ERROR` of the
 * exact level, not necessarily its nearest double): a price farther than that from it is ordered
 * by the doubles; a price that close compares with the exact level, worked out then, once.
 */
export class LooseLevel implements PriceLevel {
  #level: PriceLevel | undefined;
  constructor(
    readonly approx: number,
    private readonly exactLevel: () => PriceLevel,
  ) {}

  /** The exact level (its `approx` the nearest double). */
  level(): PriceLevel {
    return (this.#level ??= this.exactLevel());
  }

  get exact(): Decimal {
    return this.level().exact;
  }
}

/** Decimal places of bignumber.js's quotients (decimal.ts's `Decimal`): a level with no more is exact either way. */
const QUOTIENT_PLACES = 40;

/**
 * `price × (10000 − bps) / 10000` from a plain decimal text, as bignumber.js's `times().div()` gives
 * it (exact, then rounded half to even at 40 places), in bigints; its double is `Number` of its text
 * (correctly rounded, as `toNumber()`), and bignumber.js parses it only when something reads
 * `exact`. Undefined for a text that is not a plain decimal or `bps` outside 0..10000.
 */
function keptOfText(text: string, bps: number): PriceLevel | undefined {
  const parts = bps >= 0 && bps <= 10_000 ? plainDecimalParts(text) : undefined;
  if (parts === undefined) return undefined;
  const num = parts.digits * BigInt(10_000 - bps);
  const t = parts.scale + 4 <= QUOTIENT_PLACES ? plainText(num, parts.scale + 4) : quotientString(num, pow10(parts.scale + 4), 0);
  return new HighMark(Number(t), t);
}

/** The stop-loss level `entry × (10000 − bps) / 10000` of the entry's exact text: in bigints, else by bignumber.js. */
export const stopLevel = (entry: string, bps: number): PriceLevel =>
  keptOfText(entry, bps) ??
  priceLevel(
    decimal(entry, 'price')
      .times(10_000 - bps)
      .div(10_000),
  );

/** `entry × multiple` (exact, as bignumber.js's `times`): in bigints when both are plain decimal texts, else by bignumber.js. */
export function multipleLevel(text: string, multiple: string): PriceLevel {
  const a = plainDecimalParts(text);
  const m = a === undefined ? undefined : plainDecimalParts(multiple);
  if (a === undefined || m === undefined) return priceLevel(decimal(text, 'price').times(multiple));
  const t = plainText(a.digits * m.digits, a.scale + m.scale);
  return new HighMark(Number(t), t);
}

/** The level of a tick's exact price text (plain decimal); its Decimal is parsed when read. */
export const tickLevel = (text: string): PriceLevel => new HighMark(Number(text), text);

/** The trailing level `high × (10000 − bps) / 10000`: in bigints when the high is a tick's text, else by bignumber.js. */
export const keptLevel = (high: PriceLevel, bps: number): PriceLevel =>
  (high instanceof HighMark ? keptOfText(high.text, bps) : undefined) ?? priceLevel(high.exact.times(10_000 - bps).div(10_000));

/**
 * {@link keptLevel} as a {@link LooseLevel}: its double is `high.approx × (10000 − bps) / 10000` (the
 * high's double is its nearest, two roundings more), and the exact level is worked out only for a
 * price within `LOOSE_REL_ERROR` of it. A trailing level moves with every new high, and nearly
 * every price after one is clearly above or below it.
 */
export const looseKeptLevel = (high: PriceLevel, bps: number): PriceLevel => {
  const approx = (high.approx * (10_000 - bps)) / 10_000;
  return Number.isFinite(approx) && bps >= 0 && bps <= 10_000 ? new LooseLevel(approx, () => keptLevel(high, bps)) : keptLevel(high, bps);
};
