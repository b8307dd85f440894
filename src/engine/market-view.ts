/**
 * What the engine has observed of each token's market: last price, pool, reserves, liquidity and
 * safety facts. The paper executor fills from it; the risk gate filters on it. Bounded: the least
 * recently updated tokens are forgotten beyond `maxTokens` (tokens with open positions are kept by
 * the engine re-marking them on every tick).
 */
import type { UnixMs } from '../core/index.js';
import type { DomainEvent, SafetySignalKind } from './events.js';
import { solPerToken } from './price-tick.js';

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
  /** The last price tick (its exact price string is written when first read). */
  priceTick: { readonly price: string } | undefined = undefined;
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
  readonly safety: Partial<Record<SafetySignalKind, number>> = {};
  /** Inputs of the depth estimate (undefined: no estimate), and its value once computed (null: not yet). */
  depthLiquidityUsd: number | undefined = undefined;
  depthPriceUsd = 0;
  depthPriceSol = 0;
  depth: bigint | undefined | null = null;
  constructor(readonly mint: string) {}

  get price(): string | undefined {
    return this.priceTick?.price;
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
 * Creates a bounded market view (default 50 000 tokens). Observations are updated in place (no
 * copies on the hot path): treat a returned observation as a live, read-only view.
 *
 * Past the bound, the least recently observed token goes, with two rules: a token `isHeld` says we
 * hold (an open position, an intent in flight) is never dropped, and recency is kept by a second
 * chance (the CLOCK approximation of LRU): an observation seen since the last sweep moves to the
 * back instead of going. An update costs one boolean write, not a re-insertion.
 */
export function createMarketView(maxTokens = 50_000, isHeld: (mint: string) => boolean = () => false): MutableMarketView {
  const map = new Map<string, Observation>();
  const evictOne = (): void => {
    // Each entry is passed over at most twice (its second chance, then it goes); held ones move to the back.
    for (let budget = 2 * map.size; budget > 0; budget--) {
      const first = map.entries().next();
      if (first.done === true) return;
      const [mint, o] = first.value;
      map.delete(mint);
      if (o.seen || isHeld(mint)) {
        o.seen = false;
        map.set(mint, o);
        continue;
      }
      return;
    }
  };
  const get = (mint: string): Observation => {
    let o = map.get(mint);
    if (o) {
      o.seen = true;
      return o;
    }
    o = new Observation(mint);
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
          const o = get(e.mint);
          o.market = e.market ?? o.market;
          o.pool = e.poolId ?? o.pool;
          o.decimals = e.decimals ?? o.decimals;
          o.riskScore = e.riskScore ?? o.riskScore;
          o.launchedAt = o.launchedAt ?? e.receivedAt;
          return;
        }
        case 'curve':
        case 'graduating': {
          const o = get(e.mint);
          const pct = e.type === 'curve' ? e.percent : e.curvePercent;
          if (pct !== undefined) o.curvePercent = Math.max(pct, o.curvePercent ?? 0);
          return;
        }
        case 'graduated': {
          const o = get(e.mint);
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
          const o = get(e.mint);
          const poolChanged = e.pool !== undefined && e.pool !== o.pool;
          o.priceTick = e;
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
          const o = get(e.mint);
          o.safety[e.signal] = e.current; // in place: the observation is a live view
          return;
        }
        default:
          return;
      }
    },
  };
}
