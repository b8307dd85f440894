/** The mutable state of the synthetic market, shared read-only with the REST and stream layers. */
import type { Random, UnixMs } from '../../core/index.js';
import type { MarketSettings } from '../sim-settings.js';
import { createPnlBook, type PnlBook } from './pnl-book.js';
import type { DcaOrder, LiquidityRecord, SimEvent, SimWallet, TokenState, TradeRecord } from './model-types.js';
import { createActivityBuckets, type ActivityBuckets } from './activity-buckets.js';
import type { PredictionState } from './prediction-model.js';

export interface MarketState {
  readonly settings: MarketSettings;
  readonly genesisAt: UnixMs;
  readonly random: Random;
  readonly tokens: Map<string, TokenState>;
  /** Tokens in launch order. */
  readonly launched: TokenState[];
  /** Tokens that still trade (the model iterates these each slot). */
  active: TokenState[];
  readonly poolToMint: Map<string, string>;
  readonly tradesByToken: Map<string, TradeRecord[]>;
  /** Market-wide activity per minute (48 h), for the lighthouse. */
  readonly activity: ActivityBuckets;
  readonly liquidityByToken: Map<string, LiquidityRecord[]>;
  readonly wallets: Map<string, SimWallet>;
  readonly byRole: Map<string, SimWallet[]>;
  readonly deployers: string[];
  readonly pnl: PnlBook;
  readonly dca: Map<string, DcaOrder>;
  /** Mints of retired tokens and when they left (bounded by `maxRetiredTokens`, oldest first). */
  readonly retired: Map<string, UnixMs>;
  prediction?: PredictionState;
  seq: number;
  now: UnixMs;
  /** Milliseconds handed out inside the current slot, so events of one slot get distinct times. */
  subMs: number;
  readonly listeners: Set<(e: SimEvent) => void>;
}

export function createMarketState(settings: MarketSettings, random: Random, genesisAt: UnixMs): MarketState {
  return {
    settings,
    genesisAt,
    random,
    tokens: new Map(),
    launched: [],
    active: [],
    poolToMint: new Map(),
    tradesByToken: new Map(),
    activity: createActivityBuckets({ minuteDetailMs: settings.activityMinuteDetailMs }),
    liquidityByToken: new Map(),
    wallets: new Map(),
    byRole: new Map(),
    deployers: [],
    pnl: createPnlBook(settings.maxLotsPerPosition),
    dca: new Map(),
    retired: new Map(),
    seq: 0,
    now: genesisAt,
    subMs: 0,
    listeners: new Set(),
  };
}

/** The ledger slot at time `at` (one slot per `slotMs`). */
export function slotAt(state: MarketState, at: UnixMs): number {
  return 300_000_000 + Math.floor((at - state.genesisAt) / state.settings.slotMs);
}

/** A distinct time inside the current slot for the next event (time order = sequence order). */
export function eventTime(state: MarketState): UnixMs {
  const offset = Math.min(state.subMs, state.settings.slotMs - 1);
  state.subMs += 1;
  return (state.now + offset) as UnixMs;
}

export function emit(state: MarketState, e: SimEvent): void {
  for (const l of state.listeners) l(e);
}
