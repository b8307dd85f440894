/**
 * Builders of the domain events a strategy sees (events.ts), for tests: the fields a test cares
 * about are named, the rest take the values a frame without them would give. Prices are exact SOL
 * decimal strings, SOL sizes exact SOL strings turned into lamports; times are the kit clock's.
 */
import { ChainpilotError } from '../core/errors.js';
import { parseSolToLamports } from '../core/decimal.js';
import { rooms, type CurveMarket } from '../core/room-names.js';
import type { Lamports, UnixMs } from '../core/units.js';
import type {
  CurveMilestone,
  PriceTick,
  SafetySignal,
  SafetySignalKind,
  StreamGapped,
  SwapTraded,
  TokenGraduated,
  TokenGraduating,
  TokenLaunched,
} from '../engine/events/events.js';

/** An exact SOL amount ("0.5") in lamports; a bad one is an error naming the field. */
function sol(value: string, field: string): Lamports {
  const l = parseSolToLamports(value);
  if (l === undefined || l < 0n)
    throw new ChainpilotError(
      'STRATEGY_TEST_BAD_EVENT',
      `${field}: expected a SOL amount with at most 9 decimals, such as "0.5"; got ${JSON.stringify(value)}`,
      {
        retry: 'not_retryable',
        context: { field },
      },
    );
  return l;
}

const SAFETY_ROOM: Readonly<Record<SafetySignalKind, (mint: string) => string>> = {
  sniper: rooms.sniper,
  bundlers: rooms.bundlers,
  insider: rooms.insider,
  dev_holding: rooms.devHolding,
  holders: rooms.holders,
  top10: rooms.top10,
};

export interface LaunchInit {
  readonly mint: string;
  readonly symbol?: string;
  readonly name?: string;
  readonly decimals?: number;
  readonly market?: string;
  readonly poolId?: string;
  readonly riskScore?: number;
}

export interface PriceInit {
  /** Price from `price:aggregated:{mint}` instead of the primary pool's `price:token:{mint}`. */
  readonly aggregated?: boolean;
  readonly priceUsd?: number;
  readonly pool?: string;
  readonly market?: string;
  readonly liquidityUsd?: number;
  /** Pool reserves (the paper fill model's constant product); absent: the fill model's assumed depth. */
  readonly solReserveLamports?: bigint;
  readonly tokenReserveRaw?: bigint;
  readonly poolFeeBps?: number;
}

export interface TradeInit {
  readonly mint: string;
  readonly side: 'buy' | 'sell';
  /** SOL size of the swap as an exact SOL string ("0.5"). */
  readonly sol?: string;
  readonly wallet?: string;
  readonly tx?: string;
  /** Token amount as an exact decimal string. */
  readonly amount?: string;
  readonly priceUsd?: number;
  readonly volumeUsd?: number;
}

/** The builders, each stamping its event with `now()` (receive time and event time). */
export interface EventBuilders {
  /** A new token on the `latest` room. */
  launch(init: LaunchInit): TokenLaunched;
  /** A price tick of `mint` (SOL per whole token, an exact decimal string) on `price:token:{mint}`. */
  price(mint: string, price: string, init?: PriceInit): PriceTick;
  /** A swap on `transaction:{mint}`. */
  trade(init: TradeInit): SwapTraded;
  /** A safety signal (`holders` is a count, the others percentages 0..100) on its room. */
  safety(mint: string, signal: SafetySignalKind, current: number, previous?: number): SafetySignal;
  /** A curve milestone on `{market}:curve:{percent}`. */
  curve(mint: string, market: CurveMarket, percent: number): CurveMilestone;
  /** A token approaching curve completion on `graduating`. */
  graduating(mint: string, init?: { readonly market?: string; readonly curvePercent?: number }): TokenGraduating;
  /** A token that left its curve for an AMM pool, on `graduated`. */
  graduated(mint: string, init?: { readonly market?: string; readonly poolId?: string; readonly graduationTx?: string }): TokenGraduated;
  /** A closed feed gap over `rooms` that lasted `ms` up to now (reaches every strategy). */
  gap(rooms: readonly string[], ms: number): StreamGapped;
}

/** Event builders on the clock `now` (the kit's manual clock). */
export function eventBuilders(now: () => UnixMs): EventBuilders {
  const base = (room: string): { readonly room: string; readonly receivedAt: UnixMs; readonly origin: 'live' } => ({
    room,
    receivedAt: now(),
    origin: 'live',
  });
  return {
    launch: (i) => ({
      ...base(rooms.latest()),
      type: 'launch',
      mint: i.mint,
      symbol: i.symbol ?? '',
      name: i.name ?? '',
      decimals: i.decimals ?? 6,
      market: i.market ?? 'launchpad',
      poolId: i.poolId,
      riskScore: i.riskScore,
    }),
    price: (mint, price, i = {}) => {
      if (!/^\d+(\.\d+)?$/.test(price))
        throw new ChainpilotError(
          'STRATEGY_TEST_BAD_EVENT',
          `price: expected SOL per whole token as a plain decimal string, such as "0.000042"; got ${JSON.stringify(price)}`,
          {
            retry: 'not_retryable',
            context: { field: 'price' },
          },
        );
      return {
        ...base(i.aggregated === true ? rooms.aggregatedPrice(mint) : rooms.price(mint)),
        type: 'price',
        mint,
        price,
        priceUsd: i.priceUsd,
        aggregated: i.aggregated === true,
        pool: i.pool,
        market: i.market,
        liquidityUsd: i.liquidityUsd,
        solReserveLamports: i.solReserveLamports,
        tokenReserveRaw: i.tokenReserveRaw,
        poolFeeBps: i.poolFeeBps,
        at: now(),
      };
    },
    trade: (i) => ({
      ...base(rooms.transactions(i.mint)),
      type: 'trade',
      mint: i.mint,
      side: i.side,
      wallet: i.wallet,
      tx: i.tx,
      amount: i.amount,
      priceUsd: i.priceUsd,
      volumeUsd: i.volumeUsd,
      solLamports: i.sol === undefined ? undefined : sol(i.sol, 'sol'),
      at: now(),
    }),
    safety: (mint, signal, current, previous) => ({
      ...base(SAFETY_ROOM[signal](mint)),
      type: 'safety',
      mint,
      signal,
      current,
      previous,
    }),
    curve: (mint, market, percent) => ({ ...base(rooms.curve(market, percent)), type: 'curve', mint, market, percent }),
    graduating: (mint, i = {}) => ({ ...base(rooms.graduating()), type: 'graduating', mint, market: i.market, curvePercent: i.curvePercent }),
    graduated: (mint, i = {}) => ({
      ...base(rooms.graduated()),
      type: 'graduated',
      mint,
      market: i.market,
      poolId: i.poolId,
      graduationTx: i.graduationTx,
      graduationTime: now(),
    }),
    gap: (gapRooms, ms) => ({ ...base(''), type: 'gap', startedAt: (now() - ms) as UnixMs, endedAt: now(), rooms: gapRooms }),
  };
}
