/**
 * What the engine has observed of each token's market: last price, pool, reserves, liquidity and
 * safety facts. The paper executor fills from it; the risk gate filters on it. Bounded: the least
 * recently updated tokens are forgotten beyond `maxTokens` (tokens with open positions are kept by
 * the engine re-marking them on every tick).
 */
import type { UnixMs } from '../core/index.js';
import type { DomainEvent, SafetySignalKind } from './events.js';

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

const empty = (mint: string): MarketObservation => ({
  mint, price: undefined, priceAt: undefined, market: undefined, pool: undefined, decimals: undefined,
  solReserveLamports: undefined, tokenReserveRaw: undefined, poolFeeBps: undefined, liquidityUsd: undefined,
  graduated: false, curvePercent: undefined, riskScore: undefined, launchedAt: undefined, safety: {},
});

/** Creates a bounded market view (default 50 000 tokens). */
export function createMarketView(maxTokens = 50_000): MutableMarketView {
  const map = new Map<string, MarketObservation>();
  const put = (o: MarketObservation): void => {
    map.delete(o.mint);
    map.set(o.mint, o);
    if (map.size > maxTokens) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
    }
  };
  return {
    get: (mint) => map.get(mint),
    size: () => map.size,
    observe(e) {
      switch (e.type) {
        case 'launch': {
          const o = map.get(e.mint) ?? empty(e.mint);
          put({ ...o, market: e.market ?? o.market, pool: e.poolId ?? o.pool, decimals: e.decimals ?? o.decimals,
            riskScore: e.riskScore ?? o.riskScore, launchedAt: o.launchedAt ?? e.receivedAt });
          return;
        }
        case 'curve':
        case 'graduating': {
          const o = map.get(e.mint) ?? empty(e.mint);
          const pct = e.type === 'curve' ? e.percent : e.curvePercent;
          put({ ...o, curvePercent: pct === undefined ? o.curvePercent : Math.max(pct, o.curvePercent ?? 0) });
          return;
        }
        case 'graduated': {
          const o = map.get(e.mint) ?? empty(e.mint);
          // The curve's reserves no longer apply: wait for the AMM pool's first tick.
          put({ ...o, graduated: true, curvePercent: 100, market: e.market ?? o.market, pool: e.poolId ?? o.pool,
            solReserveLamports: undefined, tokenReserveRaw: undefined, poolFeeBps: undefined });
          return;
        }
        case 'price': {
          const o = map.get(e.mint) ?? empty(e.mint);
          put({ ...o, price: e.price, priceAt: e.at, pool: e.pool ?? o.pool, market: e.market ?? o.market,
            solReserveLamports: e.solReserveLamports ?? (e.pool !== undefined && e.pool !== o.pool ? undefined : o.solReserveLamports),
            tokenReserveRaw: e.tokenReserveRaw ?? (e.pool !== undefined && e.pool !== o.pool ? undefined : o.tokenReserveRaw),
            poolFeeBps: e.poolFeeBps ?? o.poolFeeBps, liquidityUsd: e.liquidityUsd ?? o.liquidityUsd });
          return;
        }
        case 'safety': {
          const o = map.get(e.mint) ?? empty(e.mint);
          put({ ...o, safety: { ...o.safety, [e.signal]: e.current } });
          return;
        }
        default:
          return;
      }
    },
  };
}
