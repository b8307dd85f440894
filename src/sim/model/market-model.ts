/**
 * The synthetic market: a seeded model stepped once per slot on the simulator's clock. It is the
 * `SimMarketPort` that part 2 (ledger, RPC, swap) trades against, and the single source of the
 * REST and Datastream views.
 */
import { ChainpilotError, type Clock, type Random, type TimerHandle, type UnixMs } from '../../core/index.js';
import type { LandedSwap, SimMarketPort, SimPool, SimQuote, SimTokenInfo } from '../market-port.js';
import type { MarketSettings } from '../sim-settings.js';
import { createMarketState, type MarketState } from './market-state.js';
import { stepMarket, type ModelFaults } from './market-dynamics.js';
import type { SimEvent, TokenState } from './model-types.js';
import { applySwap, feeBps, planSwap } from './swap-executor.js';
import { populate } from './trader-population.js';
import { stepPrediction } from './prediction-model.js';

export interface MarketModel extends SimMarketPort {
  readonly state: MarketState;
  readonly faults: ModelFaults;
  /** Listens to every model event, in order. Returns the unsubscribe. */
  onEvent(listener: (e: SimEvent) => void): () => void;
  /** Starts stepping one slot at a time on the clock. */
  start(): void;
  stop(): void;
}

export interface MarketModelOptions {
  readonly settings: MarketSettings;
  readonly clock: Clock;
  readonly random: Random;
}

/** Weight of the newest slot in the moving average of swaps per slot (about the last 10 slots). */
const SWAP_AVERAGE_WEIGHT = 0.1;

export function createMarketModel(options: MarketModelOptions): MarketModel {
  const { settings, clock } = options;
  const genesis = clock.now();
  const state = createMarketState(settings, options.random, genesis);
  populate(state);
  const faults: ModelFaults = { liquidityForkShare: 0 };
  let timer: TimerHandle | undefined;
  let nextAt = genesis;
  let running = false;
  const launchListeners = new Set<(t: SimTokenInfo) => void>();
  /** Swaps seen since the last step, and their moving average per slot (landing model's activity). */
  let swapsThisSlot = 0;
  let swapsPerSlot = 0;

  const tick = (): void => {
    timer = undefined;
    if (!running) return;
    swapsPerSlot += SWAP_AVERAGE_WEIGHT * (swapsThisSlot - swapsPerSlot);
    swapsThisSlot = 0;
    stepMarket(state, nextAt, faults);
    nextAt = (nextAt + settings.slotMs) as UnixMs;
    timer = clock.setTimeout(tick, nextAt - clock.now());
  };

  state.listeners.add((e) => {
    if (e.kind === 'trade') swapsThisSlot++;
    else if (e.kind === 'launched') for (const l of launchListeners) l(info(e.token));
  });

  const model: MarketModel = {
    state,
    faults,
    onEvent(listener) {
      state.listeners.add(listener);
      return () => state.listeners.delete(listener);
    },
    start() {
      if (running) return;
      running = true;
      stepPrediction(state, genesis);
      timer = clock.setTimeout(tick, 0);
    },
    stop() {
      running = false;
      if (timer) clock.clearTimeout(timer);
      timer = undefined;
    },
    pool(mint) {
      const t = state.tokens.get(mint);
      return t ? poolOf(t) : undefined;
    },
    quote(mint, side, amountIn): SimQuote | undefined {
      const t = state.tokens.get(mint);
      if (!t) return undefined;
      const plan = planSwap(t, side, amountIn);
      if (!plan) return undefined;
      // A curve buy larger than what is left is capped: amountIn is then the part actually used.
      return { pool: poolOf(t), amountIn: plan.grossIn, amountOut: plan.out };
    },
    applyLandedSwap(swap: LandedSwap) {
      const t = state.tokens.get(swap.mint);
      if (!t) {
        throw new ChainpilotError('SIM_UNKNOWN_TOKEN', `applyLandedSwap: mint ${swap.mint} is not a simulator token; quote a listed token first`, {
          retry: 'not_retryable',
          context: { mint: swap.mint },
        });
      }
      if (t.status === 'migrating') {
        throw new ChainpilotError('SIM_POOL_NOT_TRADABLE', `applyLandedSwap: ${swap.mint} is migrating to its AMM pool; retry after graduation`, {
          retry: 'retryable',
          context: { mint: swap.mint },
        });
      }
      applySwap(state, t, {
        wallet: swap.wallet,
        side: swap.side,
        solLamports: swap.solLamports,
        tokenRaw: swap.tokenRaw,
        tx: swap.signature,
        slot: swap.slot,
        at: swap.at,
        external: true,
      });
    },
    swapsPerSlot: () => swapsPerSlot,
    *tokens() {
      for (const t of state.launched) yield info(t);
    },
    onTokenLaunched(listener) {
      launchListeners.add(listener);
      return () => launchListeners.delete(listener);
    },
  };
  return model;
}

function info(t: TokenState): SimTokenInfo {
  return { mint: t.mint, decimals: t.decimals, symbol: t.symbol, createdAt: t.createdAt };
}

/** The pool a token trades in now, as the port describes it. */
export function poolOf(t: TokenState): SimPool {
  const amm = t.amm;
  return {
    mint: t.mint,
    poolId: amm ? amm.poolId : t.curve.poolId,
    market: amm ? 'venue_a-amm' : t.launchpad,
    kind: amm ? 'amm' : 'curve',
    decimals: t.decimals,
    solReserveLamports: amm ? amm.sol : t.curve.virtualSol,
    tokenReserveRaw: amm ? amm.token : t.curve.virtualToken,
    feeBps: feeBps(t),
    tradable: t.status !== 'migrating',
  };
}
