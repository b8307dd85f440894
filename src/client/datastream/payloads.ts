/**
 * Payload types of the Datastream rooms, as documented by the service spec. Documented fields are
 * typed and checked at runtime (see guards.ts); every extra field the server sends is kept, so
 * each type is open (`[key: string]: unknown`). Where the spec shows no shape, the payload is an
 * open object.
 */

/** An open JSON object: documented fields typed, everything else kept as sent. */
export interface OpenObject {
  readonly [key: string]: unknown;
}

/** One mint taking part in a liquidity event. Amounts stay exact strings. */
export interface LiquidityTokenAmount extends OpenObject {
  readonly address: string;
  /** Exact decimal string. */
  readonly amount: string;
  /** Integer string (raw units). */
  readonly amountRaw: string;
  readonly decimals: number;
  readonly feeAmountRaw?: string;
  readonly transferredAmountRaw?: string;
}

/**
 * One liquidity event. Live events are provisional (processed commitment) and may vanish on a
 * fork with no rollback message; several events may share one `tx`, `pool` and `wallet`.
 * Enriched events may arrive late, out of order, and with `identityStatus: 'partial'`.
 */
export interface LiquidityEvent extends OpenObject {
  readonly tx: string;
  readonly type: 'add_liquidity' | 'remove_liquidity';
  readonly program: string;
  readonly programId: string;
  readonly instruction: string;
  readonly pool: string;
  readonly wallet: string;
  /** Unix ms. */
  readonly time: number;
  readonly slot: number;
  readonly amountBasis: 'transfer' | 'principal';
  readonly tokens: readonly LiquidityTokenAmount[];
  /** Only on `:enriched` rooms; null for unknown wallets. Field names not shown by the spec. */
  readonly identity?: OpenObject | null;
  readonly identityStatus?: string;
}

/** One swap row of a `transaction:*` room (fields beyond these are not shown by the spec). */
export interface SwapEvent extends OpenObject {
  readonly tx?: string;
  readonly type?: string;
  readonly identity?: OpenObject | null;
}

export interface TokenInfo extends OpenObject {
  readonly name: string;
  readonly symbol: string;
  readonly mint: string;
}

export interface PoolInfo extends OpenObject {
  readonly market?: string;
  readonly poolId?: string;
}

/** `latest`: a new token and its pools. */
export interface TokenLaunch extends OpenObject {
  readonly token: TokenInfo;
  readonly pools: readonly PoolInfo[];
}

/** `graduated`: a token that just left its bonding curve. */
export interface TokenGraduated extends TokenLaunch {
  readonly graduationTx: string;
  readonly graduationTime: number;
}

/** `price:aggregated:{token}`: fully typed per the spec. */
export interface AggregatedPrice extends OpenObject {
  readonly token: string;
  /** Unix ms. */
  readonly timestamp: number;
  readonly price: number;
  readonly pool: string;
  readonly aggregated: {
    readonly median: number;
    readonly average: number;
    readonly min: number;
    readonly max: number;
    readonly poolCount: number;
  };
  readonly topPools: readonly { readonly poolId: string; readonly price: number; readonly liquidity: number; readonly market: string }[];
}

/** `price:token:{address}` and `token:{primary}`: the spec shows `price` (number) only. */
export interface PriceUpdate extends OpenObject {
  readonly price?: number;
}

/** `bundlers:{token}`: the spec names `totalBundlerPercentage`; other field names are not shown. */
export interface SafetySignal extends OpenObject {
  readonly totalBundlerPercentage?: number;
}
