/**
 * Payload types of the Datastream rooms, one per room family (see room-registry.ts). Each guard
 * (families/*.ts) is strict only about the fields a decision needs, type-checks the documented
 * optional fields when present, and keeps every extra field as sent, so each type is open
 * (`[key: string]: unknown`). The simulator publishes from these same types.
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

/** One side of a swap's token pair (`token.from` / `token.to`). */
export interface SwapSide extends OpenObject {
  /** Mint address. */
  readonly address: string;
  /** Decimal amount of this side (a number on the wire, or an exact string). */
  readonly amount?: number | string;
  readonly decimals?: number;
  /** `{usd}` in the service's examples; a bare number is accepted. */
  readonly price?: OpenObject | number;
}

/**
 * One swap of a `transaction:*` room. The room sends an array of these or a single one. The token
 * is a mint string or a `{from, to}` pair whose non-quote side is the traded token.
 */
export interface SwapEvent extends OpenObject {
  readonly tx?: string;
  /** `buy` or `sell` of the traded token (inferred from the pair when absent). */
  readonly type?: string;
  readonly wallet?: string;
  readonly amount?: number | string;
  readonly priceUsd?: number;
  readonly volume?: number;
  /** SOL side of the swap, in SOL. */
  readonly solVolume?: number;
  /** Unix ms. */
  readonly time?: number;
  readonly token?: string | { readonly from: SwapSide; readonly to: SwapSide };
  readonly identity?: OpenObject | null;
}

export interface TokenInfo extends OpenObject {
  readonly mint: string;
  readonly name?: string;
  readonly symbol?: string;
  readonly decimals?: number;
}

export interface PoolInfo extends OpenObject {
  readonly market?: string;
  readonly poolId?: string;
}

/** `latest`: a new token and its pools. */
export interface TokenLaunch extends OpenObject {
  readonly token: TokenInfo;
  readonly pools?: readonly PoolInfo[];
  readonly riskScore?: number;
}

/** `graduating` and `graduating:{market}:{sol}`: a token approaching curve completion. */
export interface TokenGraduating extends TokenLaunch {
  readonly curvePercentage?: number;
}

/** `graduated`: a token that just left its bonding curve (graduation fields are optional). */
export interface TokenGraduated extends TokenLaunch {
  readonly graduationTx?: string | null;
  /** Unix ms. */
  readonly graduationTime?: number | null;
}

/** `{market}:curve:{pct}`: a token reached a curve milestone (`token.mint` or `mint`). */
export interface CurveAlert extends OpenObject {
  readonly token?: TokenInfo;
  readonly mint?: string;
  readonly curvePercentage?: number;
}

/** `price:token:{address}` and `token:{primary}`: `price` in USD, `price_quote` in SOL. */
export interface PriceUpdate extends OpenObject {
  /** USD per token. */
  readonly price: number;
  /** SOL per token. */
  readonly price_quote?: number;
  readonly priceSol?: number;
  readonly token?: string;
  readonly pool?: string;
  readonly market?: string;
  /** Unix ms (the service's field). */
  readonly time?: number;
  /** Unix ms (older form). */
  readonly timestamp?: number;
  readonly liquidity?: number | { readonly usd: number };
  readonly solReserveLamports?: string;
  readonly tokenReserveRaw?: string;
  readonly feeBps?: number;
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

/** The safety rooms. */
export type SafetyRole = 'sniper' | 'bundlers' | 'insider' | 'dev_holding' | 'holders' | 'top10';

/**
 * A safety room's message. Each room carries its own role's figure (`totalSniperPercentage` on
 * `sniper`, `totalInsiderPercentage` on `insider`, ...); the guard reads exactly that one into
 * `figure` and its previous value into `previousFigure` (both added by the client).
 */
export interface SafetyUpdate extends OpenObject {
  readonly wallet?: string;
  readonly timestamp?: number;
}

/** A checked safety message with the room's own figure extracted. */
export interface SafetyPayload {
  readonly role: SafetyRole;
  /** The role's total: a percentage 0..100, or the holder count on `holders`. */
  readonly figure: number;
  readonly previousFigure: number | undefined;
  /** The message as sent. */
  readonly raw: SafetyUpdate;
}

/** `stats:*` and `volume:*`: open objects (numeric fields are read by the engine). */
export type StatsPayload = OpenObject;

/** `pnl:*`: `tradeUpdate`, `balanceUpdate` or a summary. */
export interface PnlUpdate extends OpenObject {
  readonly type?: string;
  readonly tx?: string;
  readonly token?: string;
}

/** `dca:*`: transaction events carry `eventName` and an `order`; position updates `writeVersion`. */
export interface DcaUpdate extends OpenObject {
  readonly eventName?: string;
  readonly signature?: string;
  readonly order?: OpenObject;
  readonly writeVersion?: number;
}

/** `pm:crypto:{asset}` and `pm:market:{exchange}:{tokenId}:prices`. */
export interface PredictionTick extends OpenObject {
  readonly price: number;
  readonly timestamp?: number;
}

/** The quote mints of the market: the other side of a pair is the traded token. */
export const QUOTE_MINTS: ReadonlySet<string> = new Set([
  'So11111111111111111111111111111111111111112', // wrapped SOL
  '11111111111111111111111111111111', // native SOL
  'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', // USDC
  'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', // USDT
]);
