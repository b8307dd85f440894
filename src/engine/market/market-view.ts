/**
 * What the engine has observed of each token's market: last price, pool, reserves, liquidity and
 * safety facts. The paper executor fills from it; the risk gate filters on it. Bounded twice: a token
 * not observed for `retentionMs` on the run's clock is forgotten, and beyond `maxTokens` the least
 * recently updated ones go first. A token the engine holds (`isHeld`) is never forgotten.
 */
import type { UnixMs } from '../../core/index.js';
import type { DomainEvent, SafetySignalKind } from '../events/events.js';
import { exactString, PriceTickEvent, solPerToken } from '../events/price-tick.js';

/** Default retention of an unobserved token: one hour of the run's clock. */
export const DEFAULT_MARKET_RETENTION_MS = 3_600_000;
/** Default bound on the number of tokens. */
export const DEFAULT_MARKET_MAX_TOKENS = 50_000;

export interface MarketViewOptions {
  /** Count bound (default 50 000): beyond it the least recently observed unheld token goes. */
  readonly maxTokens?: number;
  /**
   * Age bound in ms (default 1 h): a token not observed for this long on the run's clock (the
   * events' `receivedAt`, so paper and backtest forget the same tokens at the same event) goes.
   */
  readonly retentionMs?: number;
  /** A token we hold (an open position, a buy in flight): never forgotten. */
  readonly isHeld?: (mint: string) => boolean;
}

/** Latest observation of one token. Fields are undefined until the feed reports them. */
export interface MarketObservation {
  readonly mint: string;
  /** SOL per whole token (exact decimal string). */
  readonly price: string | undefined;
  readonly priceAt: UnixMs | undefined;
  readonly market: string | undefined;
  readonly pool: string | undefined;
  readonly decimals: number | undefined;
  readonly solReserveLamports: bigint | undefined;
  readonly tokenReserveRaw: bigint | undefined;
  readonly poolFeeBps: number | undefined;
  readonly liquidityUsd: number | undefined;
  /**
   * Estimated SOL side of the pool in lamports, from `liquidityUsd` and the USD/SOL price ratio of
   * the same tick (a model input for price impact, never money). Undefined until both are seen.
   */
  readonly depthLamports: bigint | undefined;
  readonly graduated: boolean;
  readonly curvePercent: number | undefined;
  readonly riskScore: number | undefined;
  readonly launchedAt: UnixMs | undefined;
  /** The bonding curve's virtual reserves at launch, when the launch frame gave them (see `TokenLaunched`). */
  readonly curveSolLamports?: bigint | undefined;
  readonly curveTokenRaw?: bigint | undefined;
  /** Latest safety values (percent 0..100; `holders` is a count). */
  readonly safety: Readonly<Partial<Record<SafetySignalKind, number>>>;
}

/** Read side: what executors and strategies may see. */
export interface MarketView {
  get(mint: string): MarketObservation | undefined;
}

export interface MutableMarketView extends MarketView {
  /** Folds an event into the observations. */
  observe(event: DomainEvent): void;
  size(): number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * One token's observation. The depth estimate is computed when it is read (the paper fill model
 * reads it when an order fills), from the inputs of the last tick that carried both a USD
 * liquidity and a USD price: the hot path stores three fields instead of parsing the SOL price
 * back into a number and building a bigint on every tick.
 */
class Observation implements Mutable<Omit<MarketObservation, 'depthLamports' | 'price'>> {
  /** Observed since the last eviction sweep passed it (its second chance; see createMarketView). */
  seen = false;
  /** When it was last observed (the event's `receivedAt`): the age bound's clock. */
  at: UnixMs;
  /**
   * The last tick's price: its exact string, or the tick itself until the string is first read (a
   * tick writes its price out lazily). Only kept for a tick whose SOL price is derived from its USD
   * price; a tick that sent a SOL price leaves just that number (`priceSol`), so an observation
   * keeps no whole event (room string, reserves, USD fields) alive.
   */
  priceTick: { readonly price: string } | undefined = undefined;
  /** The SOL price the last tick sent (NaN: none, see `priceTick`), written out exactly on first read. */
  priceSol = Number.NaN;
  priceText: string | undefined = undefined;
  priceAt: UnixMs | undefined = undefined;
  market: string | undefined = undefined;
  pool: string | undefined = undefined;
  decimals: number | undefined = undefined;
  solReserveLamports: bigint | undefined = undefined;
  tokenReserveRaw: bigint | undefined = undefined;
  poolFeeBps: number | undefined = undefined;
  liquidityUsd: number | undefined = undefined;
  graduated = false;
  curvePercent: number | undefined = undefined;
  riskScore: number | undefined = undefined;
  launchedAt: UnixMs | undefined = undefined;
  curveSolLamports: bigint | undefined = undefined;
  curveTokenRaw: bigint | undefined = undefined;
  readonly safety: Partial<Record<SafetySignalKind, number>> = {};
  /** Inputs of the depth estimate (undefined: no estimate), and its value once computed (null: not yet). */
  depthLiquidityUsd: number | undefined = undefined;
  depthPriceUsd = 0;
  depthPriceSol = 0;
  depth: bigint | undefined | null = null;
  constructor(
    readonly mint: string,
    at: UnixMs,
  ) {
    this.at = at;
  }

  get price(): string | undefined {
    if (this.priceText === undefined) {
      const sol = this.priceSol;
      if (sol === sol) this.priceText = exactString(sol);
      else if (this.priceTick !== undefined) {
        this.priceText = this.priceTick.price;
        this.priceTick = undefined;
      }
    }
    return this.priceText;
  }

  /** The last tick's price, without keeping the tick when it sent a SOL number (the same exact string either way). */
  setPrice(e: { readonly price: string }): void {
    const sol = e instanceof PriceTickEvent ? e.wireSol() : Number.NaN;
    this.priceSol = sol;
    this.priceText = undefined;
    this.priceTick = sol === sol ? undefined : e;
  }

  get depthLamports(): bigint | undefined {
    if (this.depth === null) {
      const liq = this.depthLiquidityUsd;
      if (liq === undefined) this.depth = undefined;
      else {
        const solUsd = this.depthPriceUsd / this.depthPriceSol;
        const depth = Number.isFinite(solUsd) && solUsd > 0 ? Math.floor((liq / 2 / solUsd) * 1e9) : 0;
        this.depth = depth > 0 ? BigInt(depth) : undefined;
      }
    }
    return this.depth;
  }

  /** A new depth estimate from one tick (or none, `liquidityUsd` undefined); `priceSol` is the tick's SOL price as a number. */
  setDepth(liquidityUsd: number | undefined, priceUsd: number, priceSol: number): void {
    this.depthLiquidityUsd = liquidityUsd;
    this.depthPriceUsd = priceUsd;
    this.depthPriceSol = priceSol;
    this.depth = null;
  }
}

/**
 * Creates a bounded market view. Observations are updated in place (no copies on the hot path):
 * treat a returned observation as a live, read-only view.
 *
 * Two bounds, both amortised O(1) and without timers. The map's order is a queue; an update costs
 * one boolean write and a time stamp, not a re-insertion. Each new token first looks at the front
 * of the queue: a token not observed for `retentionMs` (by the latest `receivedAt` seen) and not
 * held goes (each goes once, so this is amortised O(1)); one observed since it was queued, or held,
 * moves to the back (at most two per insert); the first fresh, unobserved one stops the look. So a
 * token idle since it was queued goes at the first new token after its retention ends, and one
 * observed and then idle within about twice the retention. Past `maxTokens`, the least recently
 * observed token goes, by the same second chance (the CLOCK approximation of LRU). A token
 * `isHeld` says we hold is never dropped by either bound.
 */
export function createMarketView(options: MarketViewOptions = {}): MutableMarketView {
  const maxTokens = options.maxTokens ?? DEFAULT_MARKET_MAX_TOKENS;
  const retentionMs = options.retentionMs ?? DEFAULT_MARKET_RETENTION_MS;
  const isHeld = options.isHeld ?? ((): boolean => false);
  const map = new Map<string, Observation>();
  /** The run's clock as the events tell it: the latest `receivedAt` observed. */
  let now = -Infinity;
  /** Moves the front entry to the back, its second chance spent. */
  const requeue = (mint: string, o: Observation): void => {
    map.delete(mint);
    o.seen = false;
    map.set(mint, o);
  };
  const evictOne = (): void => {
    // Each entry is passed over at most twice (its second chance, then it goes); held ones move to the back.
    for (let budget = 2 * map.size; budget > 0; budget--) {
      const first = map.entries().next();
      if (first.done === true) return;
      const [mint, o] = first.value;
      if (o.seen || isHeld(mint)) {
        requeue(mint, o);
        continue;
      }
      map.delete(mint);
      return;
    }
  };
  const evictStale = (): void => {
    const staleBefore = now - retentionMs;
    for (let moves = 2; moves > 0;) {
      const first = map.entries().next();
      if (first.done === true) return;
      const [mint, o] = first.value;
      const stale = o.at < staleBefore;
      if (!stale && !o.seen) return;
      if (isHeld(mint)) {
        requeue(mint, o);
        moves--;
      } else if (stale) map.delete(mint);
      else {
        requeue(mint, o);
        moves--;
      }
    }
  };
  const get = (mint: string, at: UnixMs): Observation => {
    if (at > now) now = at;
    const t = now as UnixMs; // monotonic even when a backfilled event arrives late
    let o = map.get(mint);
    if (o) {
      o.seen = true;
      o.at = t;
      return o;
    }
    o = new Observation(mint, t);
    evictStale();
    if (map.size >= maxTokens) evictOne();
    map.set(mint, o);
    return o;
  };
  return {
    get: (mint) => map.get(mint),
    size: () => map.size,
    observe(e) {
      switch (e.type) {
        case 'launch': {
          const o = get(e.mint, e.receivedAt);
          o.market = e.market ?? o.market;
          o.pool = e.poolId ?? o.pool;
          o.decimals = e.decimals ?? o.decimals;
          o.riskScore = e.riskScore ?? o.riskScore;
          o.launchedAt = o.launchedAt ?? e.receivedAt;
          if (e.curveSolLamports !== undefined && e.curveTokenRaw !== undefined) {
            o.curveSolLamports = e.curveSolLamports;
            o.curveTokenRaw = e.curveTokenRaw;
          }
          return;
        }
        case 'curve':
        case 'graduating': {
          const o = get(e.mint, e.receivedAt);
          const pct = e.type === 'curve' ? e.percent : e.curvePercent;
          if (pct !== undefined) o.curvePercent = Math.max(pct, o.curvePercent ?? 0);
          return;
        }
        case 'graduated': {
          const o = get(e.mint, e.receivedAt);
          // The curve's reserves no longer apply: wait for the AMM pool's first tick.
          o.graduated = true;
          o.curvePercent = 100;
          o.market = e.market ?? o.market;
          o.pool = e.poolId ?? o.pool;
          o.solReserveLamports = undefined;
          o.tokenReserveRaw = undefined;
          o.poolFeeBps = undefined;
          o.setDepth(undefined, 0, 0);
          return;
        }
        case 'price': {
          const o = get(e.mint, e.receivedAt);
          const poolChanged = e.pool !== undefined && e.pool !== o.pool;
          o.setPrice(e);
          o.priceAt = e.at;
          o.pool = e.pool ?? o.pool;
          o.market = e.market ?? o.market;
          o.solReserveLamports = e.solReserveLamports ?? (poolChanged ? undefined : o.solReserveLamports);
          o.tokenReserveRaw = e.tokenReserveRaw ?? (poolChanged ? undefined : o.tokenReserveRaw);
          o.poolFeeBps = e.poolFeeBps ?? o.poolFeeBps;
          o.liquidityUsd = e.liquidityUsd ?? o.liquidityUsd;
          if (e.liquidityUsd !== undefined && e.priceUsd !== undefined) o.setDepth(e.liquidityUsd, e.priceUsd, solPerToken(e));
          else if (poolChanged) o.setDepth(undefined, 0, 0);
          return;
        }
        case 'safety': {
          const o = get(e.mint, e.receivedAt);
          o.safety[e.signal] = e.current; // in place: the observation is a live view
          return;
        }
        default:
          return;
      }
    },
  };
}
