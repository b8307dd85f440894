/**
 * The engine's hot path: a stream message becomes domain events (the normaliser), and each event is
 * dispatched in a defined order:
 *   1. market view, trade tapes, bars and portfolio marks are updated;
 *   2. exit rules of open positions on that token run (stop loss, take profit, ...);
 *   3. strategies that own the room get their callback, in deployment order.
 * A feed gap reaches every strategy. The event being dispatched is kept while it runs, so an intent
 * placed meanwhile can be traced to it. Nothing here allocates per event beyond the events themselves
 * and, per swap, its entry on the trade tape of `ctx.flow` (and per bar asked for, once an interval is).
 */
import type { Clock, Logger } from '../core/index.js';
import type { EngineStats } from './logs/engine-stats.js';
import type { DomainEvent } from './events/events.js';
import type { ExitManager } from './exits/exit-manager.js';
import type { StreamGap, StreamMessage } from './events/feed-port.js';
import type { MarketBars } from './market/market-bars.js';
import type { MarketFlow } from './market/market-flow.js';
import type { MutableMarketView } from './market/market-view.js';
import { createNormaliser } from './events/normalise.js';
import type { OrderFlow } from './orders/order-flow.js';
import type { Portfolio } from './market/portfolio.js';
import type { RoomOwners } from './room-owners.js';
import type { StrategyRunner } from './strategy/strategy-runner.js';

export interface Dispatcher {
  /**
   * Maps one message to its events and dispatches each to the owners of its room; a bad frame is
   * counted, logged and skipped. A property, so the engine hands it out as is (no wrapper per message).
   */
  readonly ingest: (msg: StreamMessage) => void;
  /** Dispatches one domain event to the owners of its room (a `gap` event to every strategy), as a frame's would be. */
  readonly event: (ev: DomainEvent) => void;
  /** Dispatches a closed feed gap to every strategy. */
  readonly gap: (gap: StreamGap) => void;
  /** The domain event being dispatched right now, undefined between events. */
  readonly current: () => DomainEvent | undefined;
}

export interface DispatcherDeps {
  readonly clock: Clock;
  readonly log: Logger;
  readonly market: MutableMarketView;
  /** Trade tapes per token (`ctx.flow`), fed with every swap. */
  readonly flow: MarketFlow;
  /** Time bars (`ctx.bars`), fed with swaps and price ticks once a strategy asked for an interval. */
  readonly bars: MarketBars;
  readonly portfolio: Portfolio;
  readonly exits: ExitManager;
  readonly orders: OrderFlow;
  readonly stats: EngineStats;
  readonly rooms: RoomOwners;
  /** Every strategy's runner by id, in deployment order (filled by the engine after the dispatcher is built). */
  readonly runners: ReadonlyMap<string, StrategyRunner>;
}

const isEventList = (e: DomainEvent | readonly DomainEvent[]): e is readonly DomainEvent[] => Array.isArray(e);

export function createDispatcher(d: DispatcherDeps): Dispatcher {
  const { clock, log, market, flow, bars, portfolio, exits, orders, stats, rooms, runners } = d;
  const normaliser = createNormaliser();
  let current: DomainEvent | undefined;

  const route = (ev: DomainEvent, owners: readonly string[]): void => {
    stats.eventSeen();
    market.observe(ev);
    if (ev.type === 'price') {
      if (bars.active) bars.observe(ev, clock.now());
      portfolio.mark(ev.mint, ev);
      const held = portfolio.openOn(ev.mint);
      if (held.length > 0) {
        const fired = exits.onPrice(held, ev);
        for (let i = 0; i < fired.length; i++) orders.placeExit(fired[i]!);
        stats.markEquity();
      }
    } else if (ev.type === 'trade') {
      flow.observe(ev, clock.now());
      if (bars.active) bars.observe(ev, clock.now());
    } else if (ev.type === 'graduated') {
      portfolio.relocate(ev.mint, ev.market, ev.poolId);
    } else if (ev.type === 'safety') {
      const held = portfolio.openOn(ev.mint);
      if (held.length > 0) for (const o of exits.onSafety(held, ev.signal, ev.current)) orders.placeExit(o);
    }
    for (let i = 0; i < owners.length; i++) runners.get(owners[i]!)?.event(ev);
  };

  const dispatch = (ev: DomainEvent, owners: readonly string[]): void => {
    const outer = current;
    current = ev;
    try {
      route(ev, owners);
    } finally {
      current = outer;
    }
  };

  const gapEvent = (ev: DomainEvent): void => {
    stats.eventSeen();
    const outer = current;
    current = ev;
    try {
      for (const r of runners.values()) r.event(ev);
    } finally {
      current = outer;
    }
  };

  return {
    ingest: (msg) => {
      stats.frameSeen();
      let events: DomainEvent | readonly DomainEvent[];
      try {
        events = normaliser.events(msg);
      } catch (e) {
        stats.badFrame(msg.room, e);
        log.warn({ room: msg.room, err: e instanceof Error ? e.message : String(e) }, 'bad frame skipped');
        return;
      }
      const owners = rooms.owners(msg.room);
      if (isEventList(events)) for (const ev of events) dispatch(ev, owners);
      else dispatch(events, owners);
    },
    event: (ev) => {
      if (ev.type === 'gap') gapEvent(ev);
      else dispatch(ev, rooms.owners(ev.room));
    },
    gap: (gap) => {
      gapEvent({
        type: 'gap',
        room: '',
        receivedAt: clock.now(),
        origin: 'live',
        startedAt: gap.startedAt,
        endedAt: gap.endedAt,
        rooms: gap.rooms,
      });
    },
    current: () => current,
  };
}
