/**
 * Positions and cash with exact accounting. Holdings are branded (`RawAmount`, `Lamports`); signed
 * sums (cash, realised PnL) are bigint lamports; prices
 * are bignumber decimals. Invariant, exact at every step:
 *   cash + Σ open cost basis = starting cash + realised PnL + Σ rent returned
 * where the cost basis includes buy fees (and a new token account's rent), realised PnL is net of
 * all fees, and rent returned is `Fill.rentReturnedLamports`: rent of token accounts a swap closed,
 * back in the wallet (so in cash) but never trading proceeds (so never in PnL).
 */
import {
  addLamports,
  addRaw,
  ChainpilotError,
  Decimal,
  decimal,
  lamports,
  LAMPORTS_PER_SOL,
  mulDiv,
  subLamports,
  subRaw,
  ZERO_LAMPORTS,
  ZERO_RAW,
  type Lamports,
  type RawAmount,
  type UnixMs,
} from '../../core/index.js';
import { plainDecimalParts, pow10, quotientString } from '../../core/exact-ratio.js';
import type { Fill } from '../orders/execution-port.js';

/**
 * What positions no longer in the book added to the totals: cash (realised PnL plus rent returned),
 * realised PnL and fees, each signed lamports. A paper book that forgets old closed positions
 * (`paper.bookRetention`) keeps their sums so a restart's totals match a run that kept them.
 */
export interface CarriedTotals {
  readonly cashLamports: bigint;
  readonly realisedLamports: bigint;
  readonly feesLamports: bigint;
}

/** One strategy's holding of one token. */
export interface Position {
  readonly key: string;
  readonly strategyId: string;
  readonly mint: string;
  readonly decimals: number;
  /** Raw token units held. */
  readonly tokenRaw: RawAmount;
  /** Lamports paid for the tokens still held, buy fees included. */
  readonly costLamports: Lamports;
  /** Lamports spent on buys ever (excluding fees), and tokens bought: the average entry price. */
  readonly boughtLamports: Lamports;
  readonly boughtRaw: RawAmount;
  /** Realised PnL net of fees, signed. */
  readonly realisedLamports: bigint;
  readonly feesLamports: Lamports;
  readonly openedAt: UnixMs;
  readonly updatedAt: UnixMs;
  /** Market and pool the token trades in now (follows graduation). */
  readonly market: string | undefined;
  readonly pool: string | undefined;
}

/**
 * Something that knows a price (SOL per whole token) as an exact decimal string: a price tick. A
 * tick built from a wire number also gives that number (`wireSol`, NaN otherwise), whose exact
 * decimal is `price`: a mark values a position from it without writing the string out.
 */
export interface PriceSource {
  readonly price: string;
  wireSol?(): number;
}

/** Totals of the whole book. */
export interface PortfolioTotals {
  readonly startingCashLamports: bigint;
  readonly cashLamports: bigint;
  readonly openCostLamports: bigint;
  readonly realisedLamports: bigint;
  readonly unrealisedLamports: bigint;
  /** Mark value of open positions at the last observed prices (cost when no price is known). */
  readonly marketValueLamports: bigint;
  readonly equityLamports: bigint;
  readonly feesLamports: bigint;
  readonly openPositions: number;
}

export interface Portfolio {
  /**
   * Applies a fill. `seenAt` is when the engine saw it on the run's clock (default the fill's own
   * time): positions open and update at that time, so time-based exits measure on the run's clock,
   * never on a chain's block time (which may run ahead of or behind it).
   */
  applyFill(strategyId: string, fill: Fill, seenAt?: UnixMs): Position;
  /** A fee paid for a transaction that failed on chain. */
  applyFailedFee(strategyId: string, mint: string, feeLamports: Lamports): void;
  /** The position, open or closed; a closed one only among the latest {@link MAX_CLOSED_POSITIONS} closed. */
  position(strategyId: string, mint: string): Position | undefined;
  /** Open positions (tokenRaw > 0), in opening order. */
  open(): Position[];
  /** Open positions on one token across strategies. */
  openOn(mint: string): readonly Position[];
  /**
   * Records the latest price (SOL per whole token) of a token, for marks: a decimal string, or a
   * price tick whose string is read only when a mark needs it (most ticks are of tokens not held).
   */
  mark(mint: string, price: string | PriceSource): void;
  /** Records the market and pool a token trades in now (graduation moves it). */
  relocate(mint: string, market: string | undefined, pool: string | undefined): void;
  /** Mark value of a position in lamports, rounded down; undefined without a price. */
  valueOf(p: Position): bigint | undefined;
  totals(): PortfolioTotals;
  /**
   * `totals().equityLamports` and `totals().openPositions` without building the totals: the
   * backtest's drawdown watch and the engine's equity marks read them after every event while a
   * position is open.
   */
  equityLamports(): bigint;
  openCount(): number;
}

/**
 * Value in lamports of `raw` units at `price` SOL per whole token, rounded toward zero. A plain
 * decimal string (every price the engine writes) is valued in bigints: digits × raw, scaled by
 * the power of ten its point and `decimals` make; anything else goes through bignumber.js. Both
 * give the same result (tested on random prices).
 */
export function valueLamports(raw: bigint, decimals: number, price: string | Decimal): bigint {
  const parts = typeof price === 'string' ? plainDecimalParts(price) : undefined;
  if (parts !== undefined) {
    const exp = 9 - decimals - parts.scale;
    const v = raw * parts.digits;
    return exp >= 0 ? v * pow10(exp) : v / pow10(-exp);
  }
  const v = decimal(price, 'price')
    .times(raw.toString())
    .shiftedBy(9 - decimals);
  return BigInt(v.integerValue(Decimal.ROUND_DOWN).toFixed(0));
}

/** Powers of ten as doubles, exact up to 1e22. */
const POW10_NUMBER: readonly number[] = Array.from({ length: 23 }, (_, k) => 10 ** k);
/** Bound on the relative error of the double product below (4 roundings of 2^-53 each, with room to spare). */
const VALUE_REL_ERROR = 1e-14;

/**
 * `valueLamports(raw, decimals, exactString(sol))` on doubles: `sol` is a wire number whose exact
 * price is its shortest decimal (within half an ulp of it), so `raw × sol × 10^(9 − decimals)` in
 * doubles is within `VALUE_REL_ERROR` of the exact value. When no integer lies within that error
 * of it, its floor is the exact value's floor; otherwise (and for anything outside the doubles'
 * exact integers) undefined, and the caller works it out in bigints. Tested against the bigint
 * path on random prices and amounts, ties near integers included.
 */
export function valueLamportsOfWire(raw: bigint, decimals: number, sol: number): bigint | undefined {
  const exp = 9 - decimals;
  if (!(sol >= 0) || sol === Infinity || raw < 0n || raw > 9_007_199_254_740_991n || exp > 22 || exp < -22) return undefined;
  const r = Number(raw);
  const v = exp >= 0 ? r * sol * POW10_NUMBER[exp]! : (r * sol) / POW10_NUMBER[-exp]!;
  if (!(v < 4_503_599_627_370_496)) return undefined; // 2^52: an integer and its neighbours stay exact
  const err = v * VALUE_REL_ERROR;
  const f = Math.floor(v - err);
  return f === Math.floor(v + err) && f >= 0 ? BigInt(f) : undefined;
}

/** Value of `raw` at a mark: from a tick's wire number when the doubles decide it, else from its exact string. */
function valueAt(raw: bigint, decimals: number, price: string | PriceSource): bigint {
  if (typeof price !== 'string') {
    const sol = price.wireSol?.();
    const fast = sol === undefined || sol !== sol ? undefined : valueLamportsOfWire(raw, decimals, sol);
    return fast ?? valueLamports(raw, decimals, price.price);
  }
  return valueLamports(raw, decimals, price);
}

/** Exact price (SOL per whole token) of `lamports` for `raw` units (40 decimal places before the decimals shift, half even). */
export function priceOf(lamportsAmount: bigint, raw: bigint, decimals: number): string {
  if (raw === 0n) return '0';
  if (lamportsAmount >= 0n && raw > 0n) return quotientString(lamportsAmount, raw, decimals - 9);
  return new Decimal(lamportsAmount.toString())
    .div(raw.toString())
    .shiftedBy(decimals - 9)
    .toFixed();
}

/**
 * Closed positions a book remembers (`position()` still answers for them); past this many the one
 * changed longest ago (closed, or charged a failed fee) is forgotten. Its realised PnL and fees stay
 * in the totals; a later buy of the token opens a fresh position (realised 0). Bounds the book by
 * what it holds, not by every token it ever traded (issue 31: a hundred daemon deployments kept
 * 350,000 closed positions after 37 simulated hours, most of their heap).
 */
export const MAX_CLOSED_POSITIONS = 1_024;

const NO_POSITIONS: readonly Position[] = Object.freeze([]);

/**
 * Tokens whose venue move (graduation) a book remembers for a later first buy (`relocate`); past
 * this many the one moved longest ago is forgotten, and a first buy of it takes the fill's pool.
 * Tokens with a position are moved on the position itself and need no entry.
 */
export const MAX_VENUES = 4_096;

/**
 * A position after one fill, with what it moves in the book's cash (fees included, rent not) and,
 * for a sell, the PnL it realised. A `reopened` position (it held nothing) starts a new entry.
 */
function afterFill(p: Position, fill: Fill, at: UnixMs, reopened: boolean, strategyId: string): { next: Position; cashDelta: bigint; pnl: bigint } {
  if (fill.side === 'buy') {
    return {
      cashDelta: -(fill.solAmount + fill.feeLamports),
      pnl: 0n,
      next: {
        ...p,
        tokenRaw: addRaw(p.tokenRaw, fill.tokenAmount),
        costLamports: addLamports(addLamports(p.costLamports, fill.solAmount), fill.feeLamports),
        boughtLamports: addLamports(reopened ? ZERO_LAMPORTS : p.boughtLamports, fill.solAmount),
        boughtRaw: addRaw(reopened ? ZERO_RAW : p.boughtRaw, fill.tokenAmount),
        feesLamports: addLamports(p.feesLamports, fill.feeLamports),
        openedAt: reopened ? at : p.openedAt,
        updatedAt: at,
        pool: fill.pool ?? p.pool,
      },
    };
  }
  if (fill.tokenAmount > p.tokenRaw) {
    throw new ChainpilotError(
      'ENGINE_POSITION_OVERSOLD',
      `fill ${fill.intentId} sells ${fill.tokenAmount} raw of ${fill.mint} but the position holds ${p.tokenRaw}`,
      {
        retry: 'fatal',
        context: { intentId: fill.intentId, mint: fill.mint, strategyId },
      },
    );
  }
  // Selling everything removes the whole basis (the rounding remainder included).
  const removedCost = fill.tokenAmount === p.tokenRaw ? p.costLamports : lamports(mulDiv(p.costLamports, fill.tokenAmount, p.tokenRaw));
  const pnl = fill.solAmount - fill.feeLamports - removedCost;
  return {
    cashDelta: fill.solAmount - fill.feeLamports,
    pnl,
    next: {
      ...p,
      tokenRaw: subRaw(p.tokenRaw, fill.tokenAmount),
      costLamports: subLamports(p.costLamports, removedCost),
      realisedLamports: p.realisedLamports + pnl,
      feesLamports: addLamports(p.feesLamports, fill.feeLamports),
      updatedAt: at,
    },
  };
}

/** Creates an empty book with `startingCashLamports` of SOL. */
/**
 * A position no longer held: off its mint's open set, and remembered among the latest closed (the
 * least recently changed forgotten first, with its position). True when no open position on the mint is left.
 */
function markClosed(p: Position, openByMint: Map<string, Set<string>>, closed: Set<string>, positions: Map<string, Position>): boolean {
  const set = openByMint.get(p.mint);
  set?.delete(p.key);
  if (set?.size === 0) openByMint.delete(p.mint);
  closed.delete(p.key);
  closed.add(p.key);
  if (closed.size > MAX_CLOSED_POSITIONS) {
    const oldest = closed.values().next().value as string;
    closed.delete(oldest);
    positions.delete(oldest);
  }
  return set === undefined || set.size === 0;
}

/** A position held: in its mint's open set, no longer among the closed. */
function markOpen(p: Position, openByMint: Map<string, Set<string>>, closed: Set<string>): void {
  closed.delete(p.key);
  let set = openByMint.get(p.mint);
  if (!set) {
    set = new Set();
    openByMint.set(p.mint, set);
  }
  set.add(p.key);
}

export function createPortfolio(
  startingCashLamports: bigint,
  /**
   * Where the price of a token without an open position is read (the engine passes its market view,
   * which saw the same ticks). With it, marks are kept only while a position is open, so the book
   * holds no tick of every token ever seen; without it, every mark is kept.
   */
  priceOf?: (mint: string) => string | undefined,
  /** Sums of positions no longer held in any book (see {@link CarriedTotals}), counted from the start. */
  carried?: CarriedTotals,
): Portfolio {
  if (startingCashLamports < 0n)
    throw new ChainpilotError('CORE_INVALID_ARGUMENT', `startingCashLamports must be >= 0; got ${startingCashLamports}`, { retry: 'not_retryable' });
  const positions = new Map<string, Position>();
  /**
   * Open position keys by mint, and each open position's mark value and cost basis (the value
   * cached per price change), with their sums kept as they change, so `totals()` (the risk gate
   * reads it for every decision) costs the same with 3 open positions as with 3,000.
   */
  const openByMint = new Map<string, Set<string>>();
  const values = new Map<string, { value: bigint; cost: bigint }>();
  let valueSum = 0n;
  let costSum = 0n;
  const dirty = new Set<string>();
  /** Keys of closed positions, the least recently changed first (see MAX_CLOSED_POSITIONS). */
  const closed = new Set<string>();
  const prices = new Map<string, string | PriceSource>();
  /** The mark of a token: the tick itself when one was marked (its string is written only if the doubles cannot value it). */
  const markOf = (mint: string): string | PriceSource | undefined => prices.get(mint) ?? priceOf?.(mint);
  /**
   * `openOn(mint)` answers, kept until a position on the mint changes (a fill, a failed fee, a
   * relocation): the engine asks on every price tick of a held token. Never changed in place, so a
   * caller keeps the list it got.
   */
  const openLists = new Map<string, readonly Position[]>();
  const revalue = (p: Position): void => {
    const price = markOf(p.mint);
    const old = values.get(p.key);
    if (old) {
      valueSum -= old.value;
      costSum -= old.cost;
    }
    if (p.tokenRaw === 0n) {
      values.delete(p.key);
      // The last open position on the mint closed: its price is the market view's again (the same tick).
      if (markClosed(p, openByMint, closed, positions) && priceOf !== undefined) prices.delete(p.mint);
      return;
    }
    markOpen(p, openByMint, closed);
    const value = price === undefined ? p.costLamports : valueAt(p.tokenRaw, p.decimals, price);
    if (old) {
      old.value = value;
      old.cost = p.costLamports;
    } else values.set(p.key, { value, cost: p.costLamports });
    valueSum += value;
    costSum += p.costLamports;
  };
  const venues = new Map<string, { market: string | undefined; pool: string | undefined }>();
  let cash = startingCashLamports + (carried?.cashLamports ?? 0n);
  let realisedClosed = carried?.realisedLamports ?? 0n;
  let fees = carried?.feesLamports ?? 0n;

  const keyOf = (strategyId: string, mint: string): string => `${strategyId}\u0000${mint}`;
  /** Strategies with a position in the book (open or remembered closed): a mint's positions are found by key, never by a scan. */
  const strategies = new Set<string>();
  /** The last `equityLamports()` answer and the sums it was made of. */
  let equityCash = cash;
  let equityValue = valueSum;
  let equity = cash + valueSum;
  /**
   * A new mark of an open position whose holding did not change since it was last valued: only its
   * value moves (the sums by the difference, the open sets untouched), as `revalue` would leave them.
   */
  const remark = (p: Position): void => {
    const old = values.get(p.key);
    if (old === undefined || p.tokenRaw === 0n || old.cost !== p.costLamports) {
      revalue(p);
      return;
    }
    const price = markOf(p.mint);
    const value = price === undefined ? p.costLamports : valueAt(p.tokenRaw, p.decimals, price);
    if (value === old.value) return;
    valueSum += value - old.value;
    old.value = value;
  };
  const revalueDirty = (): void => {
    if (dirty.size === 0) return;
    for (const mint of dirty) for (const k of openByMint.get(mint) ?? []) remark(positions.get(k)!);
    dirty.clear();
  };

  const book: Portfolio = {
    applyFill(strategyId, fill, seenAt) {
      const key = keyOf(strategyId, fill.mint);
      const at = seenAt ?? fill.filledAt;
      const prev = positions.get(key);
      const venue = venues.get(fill.mint);
      const p: Position = prev ?? {
        key,
        strategyId,
        mint: fill.mint,
        decimals: fill.decimals,
        tokenRaw: ZERO_RAW,
        costLamports: ZERO_LAMPORTS,
        boughtLamports: ZERO_LAMPORTS,
        boughtRaw: ZERO_RAW,
        realisedLamports: 0n,
        feesLamports: ZERO_LAMPORTS,
        openedAt: at,
        updatedAt: at,
        market: venue?.market,
        pool: fill.pool ?? venue?.pool,
      };
      const { next, cashDelta, pnl } = afterFill(p, fill, at, prev !== undefined && prev.tokenRaw === 0n, strategyId);
      cash += cashDelta;
      realisedClosed += pnl;
      cash += fill.rentReturnedLamports ?? 0n; // back in the wallet, but never proceeds: not in the PnL above
      fees += fill.feeLamports;
      strategies.add(strategyId);
      positions.set(key, next);
      openLists.delete(fill.mint);
      revalue(next);
      return next;
    },
    applyFailedFee(strategyId, mint, feeLamports) {
      cash -= feeLamports;
      fees += feeLamports;
      realisedClosed -= feeLamports;
      const p = positions.get(keyOf(strategyId, mint));
      if (p) {
        const next = { ...p, feesLamports: addLamports(p.feesLamports, feeLamports), realisedLamports: p.realisedLamports - feeLamports };
        positions.set(p.key, next);
        openLists.delete(mint);
        revalue(next);
      }
    },
    position: (strategyId, mint) => positions.get(keyOf(strategyId, mint)),
    open: () => [...positions.values()].filter((p) => p.tokenRaw > 0n),
    openOn(mint) {
      const set = openByMint.get(mint);
      if (!set || set.size === 0) return NO_POSITIONS;
      let list = openLists.get(mint);
      if (list === undefined) {
        const out: Position[] = [];
        for (const k of set) out.push(positions.get(k)!);
        openLists.set(mint, (list = out));
      }
      return list;
    },
    mark(mint, price) {
      if (openByMint.get(mint)?.size) {
        prices.set(mint, price);
        // Revalued lazily, on the next totals().
        dirty.add(mint);
      } else if (priceOf === undefined) prices.set(mint, price);
    },
    relocate(mint, market, pool) {
      venues.delete(mint);
      venues.set(mint, { market, pool });
      if (venues.size > MAX_VENUES) venues.delete(venues.keys().next().value as string);
      for (const id of strategies) {
        const p = positions.get(keyOf(id, mint));
        if (p !== undefined) positions.set(p.key, { ...p, market, pool });
      }
      openLists.delete(mint);
      for (const k of openByMint.get(mint) ?? []) revalue(positions.get(k)!);
    },
    valueOf(p) {
      const price = markOf(p.mint);
      return price === undefined ? undefined : valueAt(p.tokenRaw, p.decimals, price);
    },
    equityLamports() {
      revalueDirty();
      // asked after every line of a backtest while a position is open: the same bigint while nothing moved
      if (cash !== equityCash || valueSum !== equityValue) {
        equityCash = cash;
        equityValue = valueSum;
        equity = cash + valueSum;
      }
      return equity;
    },
    openCount: () => values.size,
    totals() {
      revalueDirty();
      return {
        startingCashLamports,
        cashLamports: cash,
        openCostLamports: costSum,
        realisedLamports: realisedClosed,
        unrealisedLamports: valueSum - costSum,
        marketValueLamports: valueSum,
        equityLamports: cash + valueSum,
        feesLamports: fees,
        openPositions: values.size,
      };
    },
  };
  return book;
}

/** Formats lamports as a signed SOL string for reports. */
export function formatSol(l: bigint): string {
  const sign = l < 0n ? '-' : '';
  const abs = l < 0n ? -l : l;
  return `${sign}${new Decimal(abs.toString()).div(LAMPORTS_PER_SOL.toString()).toFixed()}`;
}
