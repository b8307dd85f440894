/**
 * The engine's price event (`PriceTick`), built by the normaliser from a price frame. Its exact SOL
 * price string is written out only when something reads it.
 */
import BigNumber from 'bignumber.js';
import { decimal, type UnixMs } from '../../core/index.js';
import type { PriceTick } from './events.js';

/** `0.`, `0.0`, `0.00`, ...: the prefix of a number below 1e-6 written out (the smallest double is 5e-324). */
const ZERO_POINT: readonly string[] = Array.from({ length: 325 }, (_, k) => `0.${'0'.repeat(k)}`);

/**
 * Exact decimal string of a finite wire number (no exponent notation): the digits of `String(n)`
 * with the decimal point moved, as `decimal(n).toFixed()` gives them, without a BigNumber. Prices
 * in SOL are mostly below 1e-6, so this runs for nearly every price frame: the common case (a
 * positive number with a negative exponent, `d[.ddd]e-x`) is one table prefix and two pieces of
 * `String(n)`; the rest takes the general path.
 */
export function exactString(n: number): string {
  const s = String(n);
  const e = s.indexOf('e');
  if (e < 0) return s;
  if (s.charCodeAt(0) !== 45 && s.charCodeAt(e + 1) === 45) {
    let x = 0;
    for (let i = e + 2; i < s.length; i++) x = x * 10 + s.charCodeAt(i) - 48;
    // one digit before the point in exponent notation: 7.43e-8 is 0.0000000743
    return ZERO_POINT[x - 1]! + s[0]! + (e > 1 ? s.slice(2, e) : '');
  }
  if (!Number.isFinite(n)) return decimal(n, 'price').toFixed(); // throws CORE_INVALID_DECIMAL
  const neg = s.charCodeAt(0) === 45 ? 1 : 0;
  const mantissa = s.slice(neg, e);
  const dot = mantissa.indexOf('.');
  const digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  const point = (dot < 0 ? mantissa.length : dot) + Number(s.slice(e + 1));
  const body =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return neg ? `-${body}` : body;
}

/**
 * A price event. Its `price`, the exact decimal string of SOL per token, is written out on first
 * read and kept: most ticks are never read as a string (a token nobody holds), and writing a double
 * out exactly costs more than the rest of the tick. Every other field is a plain own property, and
 * `toJSON` writes `price` in its place, so a logged or serialised tick looks as it always did.
 */
export class PriceTickEvent implements PriceTick {
  readonly type = 'price' as const;
  #text: string | undefined;
  readonly #sol: number;
  readonly #usdPerSol: number;
  constructor(
    readonly room: string,
    readonly receivedAt: UnixMs,
    readonly origin: PriceTick['origin'],
    readonly mint: string,
    /** SOL per token as sent, or NaN: USD over `usdPerSol` (the rate learnt when the tick came). */
    sol: number,
    usdPerSol: number,
    readonly priceUsd: number | undefined,
    readonly aggregated: boolean,
    readonly pool: string | undefined,
    readonly market: string | undefined,
    readonly liquidityUsd: number | undefined,
    readonly solReserveLamports: bigint | undefined,
    readonly tokenReserveRaw: bigint | undefined,
    readonly poolFeeBps: number | undefined,
    readonly at: UnixMs,
  ) {
    this.#sol = sol;
    this.#usdPerSol = usdPerSol;
  }

  get price(): string {
    if (this.#text === undefined) {
      const sol = this.#sol;
      this.#text =
        sol === sol ? exactString(sol) : new BigNumber(this.priceUsd ?? 0).div(this.#usdPerSol).decimalPlaces(18, BigNumber.ROUND_HALF_EVEN).toFixed();
    }
    return this.#text;
  }

  /** The SOL price the frame sent, NaN when it is derived from the USD price (`price` is then the only exact form). */
  wireSol(): number {
    return this.#sol;
  }

  /** SOL per token as a number (the wire number itself when the frame sent one). */
  solNumber(): number {
    const sol = this.#sol;
    return sol === sol ? sol : Number(this.price);
  }

  /** The tick as a plain object (bigint reserves as decimal strings). */
  toJSON(): Record<string, unknown> {
    return {
      room: this.room,
      receivedAt: this.receivedAt,
      origin: this.origin,
      type: this.type,
      mint: this.mint,
      price: this.price,
      priceUsd: this.priceUsd,
      aggregated: this.aggregated,
      pool: this.pool,
      market: this.market,
      liquidityUsd: this.liquidityUsd,
      solReserveLamports: this.solReserveLamports?.toString(),
      tokenReserveRaw: this.tokenReserveRaw?.toString(),
      poolFeeBps: this.poolFeeBps,
      at: this.at,
    };
  }
}

/** SOL per token of a price tick as a number, without writing its exact string when the normaliser built it. */
export function solPerToken(e: PriceTick): number {
  return e instanceof PriceTickEvent ? e.solNumber() : Number(e.price);
}
