/** State and event types of the synthetic market. Amounts are exact integers; prices are observations. */
import type { UnixMs } from '../../core/index.js';

export type TraderRole = 'retail' | 'bot' | 'sniper' | 'bundler' | 'kol' | 'insider' | 'developer' | 'lp' | 'dca';

/** A synthetic wallet with its identity tags. */
export interface SimWallet {
  readonly address: string;
  readonly role: TraderRole;
  /** Identity tags as served by `enrich=identity` (empty for unknown wallets). */
  readonly tags: readonly string[];
  readonly kolName?: string;
}

export type TokenFate = 'runner' | 'rug' | 'fizzle';

export interface CurveState {
  readonly poolId: string;
  virtualSol: bigint;
  virtualToken: bigint;
  realSol: bigint;
  realToken: bigint;
  readonly initialRealToken: bigint;
}

export interface AmmState {
  readonly poolId: string;
  sol: bigint;
  token: bigint;
  readonly createdAt: UnixMs;
  readonly createdTx: string;
}

/** Everything the model knows about one token. */
export interface TokenState {
  readonly mint: string;
  readonly name: string;
  readonly symbol: string;
  readonly decimals: number;
  readonly supplyRaw: bigint;
  readonly deployer: string;
  /** Launchpad market: `venue_a`, `venue_c` or `venue_d-curve`. */
  readonly launchpad: string;
  readonly createdAt: UnixMs;
  readonly createdTx: string;
  readonly createdSlot: number;
  readonly image: string;
  readonly hasSocials: boolean;
  readonly fate: TokenFate;
  readonly curve: CurveState;
  amm?: AmmState;
  status: 'curve' | 'migrating' | 'graduated';
  graduatedAt?: UnixMs;
  graduationTx?: string;
  /** Highest curve percent reached (milestones fire once each, on the first crossing). */
  maxCurvePct: number;
  /** Trades per simulated second right now; decays. */
  activity: number;
  /** Probability that a trade is a buy. */
  buyBias: number;
  alive: boolean;
  /** When the token stopped trading (activity decayed away). */
  diedAt?: UnixMs;
  rugAt?: UnixMs;
  rugged: boolean;
  communityMessages: number;
  readonly balances: Map<string, bigint>;
  readonly roles: Map<string, Set<TraderRole>>;
  /** Wallets with a positive balance, in insertion order (for seeded picks). */
  readonly holderList: string[];
  readonly holderIndex: Map<string, number>;
  athPriceUsd: number;
  buys: number;
  sells: number;
  volumeLamports: bigint;
  /** Milestones reached, in order: `{pct, at}`. */
  readonly milestones: { pct: number; at: UnixMs }[];
}

/** One swap on the tape. `solLamports`/`tokenRaw` are the amounts that moved in the pool. */
export interface TradeRecord {
  readonly seq: number;
  readonly tx: string;
  readonly mint: string;
  readonly pool: string;
  readonly market: string;
  readonly wallet: string;
  readonly side: 'buy' | 'sell';
  readonly solLamports: bigint;
  readonly tokenRaw: bigint;
  /** Tokens the wallet received (buy) or gave (sell, fee included). */
  readonly walletTokenRaw: bigint;
  /** Lamports the wallet paid (buy, fee included) or received (sell). */
  readonly walletSolLamports: bigint;
  readonly priceUsd: number;
  readonly priceSol: number;
  readonly volumeUsd: number;
  readonly time: UnixMs;
  readonly slot: number;
  /** True for trades applied from the ledger (part 2). */
  readonly external: boolean;
}

/** One liquidity action (add or remove) on a pool. */
export interface LiquidityRecord {
  readonly seq: number;
  readonly tx: string;
  readonly type: 'add_liquidity' | 'remove_liquidity';
  readonly mint: string;
  readonly pool: string;
  readonly program: string;
  readonly wallet: string;
  readonly solLamports: bigint;
  readonly tokenRaw: bigint;
  readonly time: UnixMs;
  readonly slot: number;
  /** False for a provisional event that a fork removed: streamed but never in REST history. */
  readonly canonical: boolean;
}

export interface DcaOrder {
  readonly address: string;
  readonly wallet: string;
  readonly inputMint: string;
  readonly outputMint: string;
  readonly depositedLamports: bigint;
  readonly perCycleLamports: bigint;
  readonly cycleMs: number;
  readonly createdAt: UnixMs;
  usedLamports: bigint;
  receivedRaw: bigint;
  fills: number;
  status: 'active' | 'completed';
  nextFillAt: UnixMs;
  updatedAt: UnixMs;
}

export type SimEvent =
  | { readonly kind: 'launched'; readonly token: TokenState; readonly at: UnixMs }
  | { readonly kind: 'trade'; readonly token: TokenState; readonly trade: TradeRecord; readonly maxCurvePctBefore: number }
  | { readonly kind: 'milestone'; readonly token: TokenState; readonly pct: number; readonly at: UnixMs }
  | { readonly kind: 'graduated'; readonly token: TokenState; readonly at: UnixMs }
  | { readonly kind: 'liquidity'; readonly token: TokenState; readonly event: LiquidityRecord }
  | { readonly kind: 'dca'; readonly order: DcaOrder; readonly eventName: 'opened' | 'filled' | 'closed'; readonly at: UnixMs; readonly tx: string }
  | { readonly kind: 'pm_price'; readonly exchange: string; readonly tokenId: string; readonly price: number; readonly at: UnixMs }
  | { readonly kind: 'pm_crypto'; readonly asset: string; readonly price: number; readonly at: UnixMs };
