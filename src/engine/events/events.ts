/**
 * Domain events: what the engine dispatches to strategies, normalised from Datastream frames.
 * Prices are exact decimal strings (SOL per whole token); amounts are bigint; time is Unix ms.
 */
import type { Lamports, UnixMs } from '../../core/index.js';

/** Fields every event carries. */
interface EventBase {
  /** The Datastream room the frame arrived on (`gap` events: empty). */
  readonly room: string;
  /** When the frame was received (feed clock). */
  readonly receivedAt: UnixMs;
  /** `backfill` when recovered from REST history after a gap. */
  readonly origin: 'live' | 'backfill';
}

/** A token appeared on a launchpad (`latest` room). */
export interface TokenLaunched extends EventBase {
  /** Event discriminator. */
  readonly type: 'launch';
  /** Mint of the new token. */
  readonly mint: string;
  /** Ticker symbol ('' when the frame has none). */
  readonly symbol: string;
  /** Token name ('' when the frame has none). */
  readonly name: string;
  /** Token decimals, when the frame says. */
  readonly decimals: number | undefined;
  /** Market of the primary (first) pool, for example `venue_a`. */
  readonly market: string | undefined;
  /** Address of the primary pool. */
  readonly poolId: string | undefined;
  /** Risk score, when the frame carries one. */
  readonly riskScore: number | undefined;
  /**
   * The primary pool's bonding-curve virtual reserves at launch (`pools[0].curve`: lamports and raw
   * units), when the frame carries them: a constant-product curve keeps their product until it
   * graduates, so with a later price they give the curve's reserves then (the paper fill model's depth).
   * This one is the SOL side, in lamports.
   */
  readonly curveSolLamports?: bigint;
  /** The token side of the same virtual reserves at launch, in raw units (with `curveSolLamports`). */
  readonly curveTokenRaw?: bigint;
}

/** A bonding curve reached a milestone (`{market}:curve:{pct}` rooms). */
export interface CurveMilestone extends EventBase {
  /** Event discriminator. */
  readonly type: 'curve';
  /** Token that reached the milestone. */
  readonly mint: string;
  /** Market from the room name (`venue_a`, `launchpad`, ...). */
  readonly market: string;
  /** Curve percent from the room name (the milestone crossed). */
  readonly percent: number;
}

/** A token is approaching curve completion (`graduating` rooms). */
export interface TokenGraduating extends EventBase {
  /** Event discriminator. */
  readonly type: 'graduating';
  /** Token approaching curve completion. */
  readonly mint: string;
  /** Market from the room name, else of the primary pool. */
  readonly market: string | undefined;
  /** Curve percent now, when sent. */
  readonly curvePercent: number | undefined;
}

/** A token left its bonding curve for an AMM pool (`graduated` room). */
export interface TokenGraduated extends EventBase {
  /** Event discriminator. */
  readonly type: 'graduated';
  /** Token that graduated. */
  readonly mint: string;
  /** Market of its new (AMM) pool. */
  readonly market: string | undefined;
  /** Address of its new pool. */
  readonly poolId: string | undefined;
  /** Signature of the graduation, when sent (the service's documented example has none). */
  readonly graduationTx: string | undefined;
  /** Unix ms of the graduation, when sent. */
  readonly graduationTime: UnixMs | undefined;
}

/**
 * Observed price (primary pool, or aggregated across pools). A tick writes its `price` string out
 * when it is first read, so it is a read-only object to copy by field: `{ ...tick }` leaves `price` out.
 */
export interface PriceTick extends EventBase {
  /** Event discriminator. */
  readonly type: 'price';
  /** Token priced. */
  readonly mint: string;
  /** SOL per whole token, exact decimal string of the wire number (`price_quote` or `priceSol` when sent, else `price`). */
  readonly price: string;
  /** USD per token, when the frame carries both a USD and a SOL price. */
  readonly priceUsd: number | undefined;
  /** True for `price:aggregated:{mint}` (across the top pools). */
  readonly aggregated: boolean;
  /** Pool the price comes from, when sent. */
  readonly pool: string | undefined;
  /** Market of that pool, when sent. */
  readonly market: string | undefined;
  /** Pool liquidity in USD, when sent. */
  readonly liquidityUsd: number | undefined;
  /** Pool reserves when the feed reports them (constant-product fill model). */
  readonly solReserveLamports: bigint | undefined;
  /** Token reserve of the pool in raw units, when reported. */
  readonly tokenReserveRaw: bigint | undefined;
  /** Pool fee in bps, when reported. */
  readonly poolFeeBps: number | undefined;
  /** Unix ms of the price (`time` of the frame, else the receive time). */
  readonly at: UnixMs;
}

/** One mint of a liquidity event, with its exact amount. */
export interface LiquidityTokenAmount {
  /** Mint of this side. */
  readonly mint: string;
  /** Exact amount in raw units. */
  readonly amountRaw: bigint;
  /** Decimals of the mint. */
  readonly decimals: number;
}

/** Liquidity added to or removed from a pool. Live events are provisional (processed commitment). */
export interface LiquidityChanged extends EventBase {
  /** Event discriminator. */
  readonly type: 'liquidity';
  /** The token of the room (first token for pool and wallet rooms). */
  readonly mint: string;
  /** `add` or `remove`. */
  readonly kind: 'add' | 'remove';
  /** Pool address. */
  readonly pool: string;
  /** Owner or authority of the action (may be a delegate or program-derived address). */
  readonly wallet: string;
  /** Transaction signature (several events may share one). */
  readonly tx: string;
  /** Ledger slot. */
  readonly slot: number;
  /** Participating mints with exact amounts (one-sided actions have one). */
  readonly tokens: readonly LiquidityTokenAmount[];
  /** True for live events (processed commitment: may vanish on a fork); false when confirmed or backfilled. */
  readonly provisional: boolean;
  /** Unix ms of the event. */
  readonly at: UnixMs;
}

/** A swap on the market (`transaction:*` rooms). */
export interface SwapTraded extends EventBase {
  /** Event discriminator. */
  readonly type: 'trade';
  /** Traded token (the non-quote side of the `{from, to}` pair). */
  readonly mint: string;
  /** `buy` or `sell` of that token. */
  readonly side: 'buy' | 'sell';
  /** Trader, when sent. */
  readonly wallet: string | undefined;
  /** Transaction signature, when sent. */
  readonly tx: string | undefined;
  /** Token amount as exact decimal string, when given. */
  readonly amount: string | undefined;
  /** USD price per token, when sent. */
  readonly priceUsd: number | undefined;
  /** USD volume of the swap, when sent. */
  readonly volumeUsd: number | undefined;
  /** SOL size of the swap in lamports (the wire's `solVolume`, else the SOL side of the pair, to the nearest lamport), when sent. */
  readonly solLamports: Lamports | undefined;
  /** Unix ms of the swap (`time`, else the receive time). */
  readonly at: UnixMs;
}

export type SafetySignalKind = 'sniper' | 'bundlers' | 'insider' | 'dev_holding' | 'holders' | 'top10';

/** A safety signal changed (percentages 0..100, holders as a count). */
export interface SafetySignal extends EventBase {
  /** Event discriminator. */
  readonly type: 'safety';
  /** Token the room is about. */
  readonly mint: string;
  /** Which room: `sniper`, `bundlers`, `insider`, `dev_holding`, `holders` or `top10`. */
  readonly signal: SafetySignalKind;
  /** The room's own figure: the role's total percentage (0..100), or the holder count on `holders`. */
  readonly current: number;
  /** The previous value of that figure, when sent. */
  readonly previous: number | undefined;
}

/** Statistics or volume update: the numeric fields of the payload. */
export interface StatsUpdated extends EventBase {
  /** `stats` or `volume` (from the room name). */
  readonly type: 'stats' | 'volume';
  /** `token` or `pool`. */
  readonly scope: 'token' | 'pool';
  /** Token or pool address. */
  readonly id: string;
  /** The payload's numeric fields by name. */
  readonly values: Readonly<Record<string, number>>;
}

/** Live PnL of a watched wallet (`pnl:*` rooms). */
export interface WalletPnlUpdated extends EventBase {
  /** Event discriminator. */
  readonly type: 'walletPnl';
  /** Watched wallet. */
  readonly wallet: string;
  /** Token of a `pnl:{wallet}:{mint}` room. */
  readonly mint: string | undefined;
  /** The payload's `type` (`tradeUpdate`, `balanceUpdate`), or `summary`. */
  readonly kind: string;
  /** The payload as sent (fields not shown by the spec). */
  readonly data: Readonly<Record<string, unknown>>;
}

/** A DCA program event. */
export interface DcaEvent extends EventBase {
  /** Event discriminator. */
  readonly type: 'dca';
  /** `opened`, `filled`, `closed`, ...; absent on position snapshots. */
  readonly eventName: string | undefined;
  /** Token the room is scoped to, with the flow direction, when the room says so. */
  readonly mint: string | undefined;
  /** `buyers` or `sellers` for `dca:{program}:{mint}:buyers|sellers` rooms. */
  readonly flow: 'buyers' | 'sellers' | undefined;
  /** Mint the order sells, when its order says. */
  readonly inputMint: string | undefined;
  /** Mint the order buys, when its order says. */
  readonly outputMint: string | undefined;
  /** The payload as sent. */
  readonly data: Readonly<Record<string, unknown>>;
}

/** Outcome price of a prediction market. */
export interface PredictionPrice extends EventBase {
  /** Event discriminator. */
  readonly type: 'prediction';
  /** Exchange from the room name. */
  readonly exchange: string;
  /** Outcome token from the room name. */
  readonly tokenId: string;
  /** Outcome price (0..1). */
  readonly price: number;
}

/** Oracle tick of a crypto up/down underlying. */
export interface CryptoTick extends EventBase {
  /** Event discriminator. */
  readonly type: 'crypto';
  /** Underlying asset from the room name. */
  readonly asset: string;
  /** Oracle price in USD. */
  readonly price: number;
}

/** The feed was disconnected and may have missed events in these rooms. */
export interface StreamGapped extends EventBase {
  /** Event discriminator. */
  readonly type: 'gap';
  /** Unix ms the feed went down. */
  readonly startedAt: UnixMs;
  /** Unix ms it was back. */
  readonly endedAt: UnixMs;
  /** Rooms that may have missed events (backfilled from REST where possible). */
  readonly rooms: readonly string[];
}

export type DomainEvent =
  | TokenLaunched
  | CurveMilestone
  | TokenGraduating
  | TokenGraduated
  | PriceTick
  | LiquidityChanged
  | SwapTraded
  | SafetySignal
  | StatsUpdated
  | WalletPnlUpdated
  | DcaEvent
  | PredictionPrice
  | CryptoTick
  | StreamGapped;

export type DomainEventType = DomainEvent['type'];
