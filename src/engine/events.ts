/**
 * Domain events: what the engine dispatches to strategies, normalised from Datastream frames.
 * Prices are exact decimal strings (SOL per whole token); amounts are bigint; time is Unix ms.
 */
import type { UnixMs } from '../core/index.js';

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
  readonly type: 'launch';
  readonly mint: string;
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number | undefined;
  readonly market: string | undefined;
  readonly poolId: string | undefined;
  readonly riskScore: number | undefined;
}

/** A bonding curve reached a milestone (`{market}:curve:{pct}` rooms). */
export interface CurveMilestone extends EventBase {
  readonly type: 'curve';
  readonly mint: string;
  readonly market: string;
  readonly percent: number;
}

/** A token is approaching curve completion (`graduating` rooms). */
export interface TokenGraduating extends EventBase {
  readonly type: 'graduating';
  readonly mint: string;
  readonly market: string | undefined;
  readonly curvePercent: number | undefined;
}

/** A token left its bonding curve for an AMM pool (`graduated` room). */
export interface TokenGraduated extends EventBase {
  readonly type: 'graduated';
  readonly mint: string;
  readonly market: string | undefined;
  readonly poolId: string | undefined;
  readonly graduationTx: string | undefined;
  readonly graduationTime: UnixMs | undefined;
}

/** Observed price (primary pool, or aggregated across pools). */
export interface PriceTick extends EventBase {
  readonly type: 'price';
  readonly mint: string;
  /** SOL per whole token, exact decimal string of the wire number (`price_quote` or `priceSol` when sent, else `price`). */
  readonly price: string;
  /** USD per token, when the frame carries both a USD and a SOL price. */
  readonly priceUsd: number | undefined;
  readonly aggregated: boolean;
  readonly pool: string | undefined;
  readonly market: string | undefined;
  readonly liquidityUsd: number | undefined;
  /** Pool reserves when the feed reports them (constant-product fill model). */
  readonly solReserveLamports: bigint | undefined;
  readonly tokenReserveRaw: bigint | undefined;
  readonly poolFeeBps: number | undefined;
  readonly at: UnixMs;
}

export interface LiquidityTokenAmount {
  readonly mint: string;
  readonly amountRaw: bigint;
  readonly decimals: number;
}

/** Liquidity added to or removed from a pool. Live events are provisional (processed commitment). */
export interface LiquidityChanged extends EventBase {
  readonly type: 'liquidity';
  /** The token of the room (first token for pool and wallet rooms). */
  readonly mint: string;
  readonly kind: 'add' | 'remove';
  readonly pool: string;
  readonly wallet: string;
  readonly tx: string;
  readonly slot: number;
  readonly tokens: readonly LiquidityTokenAmount[];
  readonly provisional: boolean;
  readonly at: UnixMs;
}

/** A swap on the market (`transaction:*` rooms). */
export interface SwapTraded extends EventBase {
  readonly type: 'trade';
  readonly mint: string;
  readonly side: 'buy' | 'sell';
  readonly wallet: string | undefined;
  readonly tx: string | undefined;
  /** Token amount as exact decimal string, when given. */
  readonly amount: string | undefined;
  readonly priceUsd: number | undefined;
  readonly volumeUsd: number | undefined;
  readonly at: UnixMs;
}

export type SafetySignalKind = 'sniper' | 'bundlers' | 'insider' | 'dev_holding' | 'holders' | 'top10';

/** A safety signal changed (percentages 0..100, holders as a count). */
export interface SafetySignal extends EventBase {
  readonly type: 'safety';
  readonly mint: string;
  readonly signal: SafetySignalKind;
  readonly current: number;
  readonly previous: number | undefined;
}

/** Statistics or volume update: the numeric fields of the payload. */
export interface StatsUpdated extends EventBase {
  readonly type: 'stats' | 'volume';
  readonly scope: 'token' | 'pool';
  readonly id: string;
  readonly values: Readonly<Record<string, number>>;
}

/** Live PnL of a watched wallet (`pnl:*` rooms). */
export interface WalletPnlUpdated extends EventBase {
  readonly type: 'walletPnl';
  readonly wallet: string;
  readonly mint: string | undefined;
  readonly kind: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** A DCA program event. */
export interface DcaEvent extends EventBase {
  readonly type: 'dca';
  readonly eventName: string | undefined;
  /** Token the room is scoped to, with the flow direction, when the room says so. */
  readonly mint: string | undefined;
  readonly flow: 'buyers' | 'sellers' | undefined;
  readonly inputMint: string | undefined;
  readonly outputMint: string | undefined;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Outcome price of a prediction market. */
export interface PredictionPrice extends EventBase {
  readonly type: 'prediction';
  readonly exchange: string;
  readonly tokenId: string;
  readonly price: number;
}

/** Oracle tick of a crypto up/down underlying. */
export interface CryptoTick extends EventBase {
  readonly type: 'crypto';
  readonly asset: string;
  readonly price: number;
}

/** The feed was disconnected and may have missed events in these rooms. */
export interface StreamGapped extends EventBase {
  readonly type: 'gap';
  readonly startedAt: UnixMs;
  readonly endedAt: UnixMs;
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
