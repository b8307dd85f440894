/**
 * The port between the simulator's market model (part 1) and its ledger, JSON-RPC and swap
 * service (part 2). The model owns prices and the trade tape; the ledger owns balances. A swap that
 * lands on the ledger is applied to the model with exactly the amounts it moved.
 */
import type { Clock, Logger, Random, UnixMs } from '../core/index.js';

export type SimPoolKind = 'curve' | 'amm';

/** Pricing state of the pool a token currently trades in. */
export interface SimPool {
  readonly mint: string;
  readonly poolId: string;
  /** Market identifier: `venue_a` (bonding curve), `venue_a-amm` (graduated pool), ... */
  readonly market: string;
  readonly kind: SimPoolKind;
  readonly decimals: number;
  /** Reserves used for constant-product pricing (virtual plus real for a curve). */
  readonly solReserveLamports: bigint;
  readonly tokenReserveRaw: bigint;
  /** Trading fee taken from the input, in bps. */
  readonly feeBps: number;
  /** False while a completed curve migrates: swaps are refused. */
  readonly tradable: boolean;
}

export interface SimQuote {
  readonly pool: SimPool;
  readonly amountIn: bigint;
  /** Exact output the model gives for `amountIn` now (after fee). */
  readonly amountOut: bigint;
}

/** A swap that landed on the ledger, to be applied to the model. */
export interface LandedSwap {
  readonly mint: string;
  readonly wallet: string;
  readonly side: 'buy' | 'sell';
  /** Lamports into the pool (buy) or out of it (sell). */
  readonly solLamports: bigint;
  /** Raw tokens out of the pool (buy) or into it (sell). */
  readonly tokenRaw: bigint;
  readonly signature: string;
  readonly slot: number;
  readonly at: UnixMs;
}

export interface SimTokenInfo {
  readonly mint: string;
  readonly decimals: number;
  readonly symbol: string;
  readonly createdAt: UnixMs;
}

export interface SimMarketPort {
  /** The pool a token trades in now (curve before graduation, AMM after), or undefined if unknown. */
  pool(mint: string): SimPool | undefined;
  /** What the model would give for a swap right now. Undefined when the token is unknown or not tradable. */
  quote(mint: string, side: 'buy' | 'sell', amountIn: bigint): SimQuote | undefined;
  /** Applies a landed swap: moves reserves by exactly these amounts, records it on the trade tape, streams it. */
  applyLandedSwap(swap: LandedSwap): void;
  /** Market-wide swaps per slot, a moving average over the recent slots (the landing model's activity); absent: 0. */
  swapsPerSlot?(): number;
  /** Every token known so far. */
  tokens(): Iterable<SimTokenInfo>;
  /** Called for each token launched from now on. Returns an unsubscribe function. */
  onTokenLaunched(listener: (token: SimTokenInfo) => void): () => void;
}

/**
 * Everything an additional simulator service (JSON-RPC, swap, ...) gets from the running simulator.
 * `startSimulator({ services: [...] })` starts each factory after the market model and REST and
 * Datastream servers are up, and stops them first on `stop()`.
 */
export interface SimServiceContext {
  readonly market: SimMarketPort;
  /** The simulator's clock (real time, scaled, or as fast as possible). */
  readonly clock: Clock;
  /** A random source forked for this service from the simulator's seed. */
  readonly random: Random;
  /** The key clients must present (`x-api-key`, `api_key`, Datastream path). */
  readonly apiKey: string;
  /** Interface to listen on (127.0.0.1 by default); services pick an ephemeral port unless told. */
  readonly host: string;
  readonly log: Logger;
}

export interface SimService {
  /** URLs this service serves, e.g. `{ rpc: 'http://127.0.0.1:40123/', swap: 'http://127.0.0.1:40124' }`. */
  readonly urls: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

export type SimServiceFactory = (ctx: SimServiceContext) => Promise<SimService>;
