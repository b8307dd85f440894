/**
 * Turns model events into Datastream messages for every matching room. A payload is built only
 * when its room has subscribers, so an idle simulator pays nothing for rooms nobody watches.
 */
import type { MarketState } from '../model/market-state.js';
import type { SimEvent, TokenState, TradeRecord } from '../model/model-types.js';
import { curvePct, realSolLamports } from '../model/token-pricing.js';
import type { TokenGraduated } from '../../client/datastream/index.js';
import { liquidityRow, streamSwap, tokenWithPools } from '../views/wire-views.js';
import type { DatastreamHub } from './datastream-hub.js';
import { createSafetyPublisher } from './safety-rooms.js';
import { publishPriceRooms } from './price-rooms.js';
import { publishPnl } from './pnl-rooms.js';
import { publishDca } from './dca-rooms.js';

/** Markets with `{market}:curve:{pct}` alerts; `launchpad` matches every launchpad. */
const CURVE_ROOM = /^(venue_a|launchpad|venue_c|venue_d-curve):curve:(\d{1,3}(?:\.\d+)?)$/;
const GRADUATING_ROOM = /^graduating:([^:]+):(\d+(?:\.\d+)?)$/;
/** Tokens at or above this curve percent stream on `graduating`. */
export const GRADUATING_MIN_PCT = 40;

export interface RoomRouter {
  route(e: SimEvent): void;
}

export function createRoomRouter(state: MarketState, hub: DatastreamHub): RoomRouter {
  const publishSafety = createSafetyPublisher(state, hub);
  /** market → (room → threshold percent), so `venue_a:curve:30` and `venue_a:curve:30.0` both work. */
  const curveRooms = new Map<string, Map<string, number>>();
  const graduatingRooms = new Map<string, { market: string; sol: number }>();
  hub.onRoomChange((room, joined) => {
    const c = CURVE_ROOM.exec(room);
    if (c) {
      let rooms = curveRooms.get(c[1]!);
      if (!rooms) curveRooms.set(c[1]!, (rooms = new Map<string, number>()));
      if (joined) rooms.set(room, Number(c[2]));
      else rooms.delete(room);
    }
    const g = GRADUATING_ROOM.exec(room);
    if (g) {
      if (joined) graduatingRooms.set(room, { market: g[1]!, sol: Number(g[2]) });
      else graduatingRooms.delete(room);
    }
  });

  const withEnriched = (room: string, build: (enrich: boolean) => unknown): void => {
    if (hub.has(room)) hub.publish(room, build(false));
    const er = `${room}:enriched`;
    if (hub.has(er)) hub.publish(er, build(true));
  };

  const onTrade = (t: TokenState, tr: TradeRecord, maxBefore: number): void => {
    // the service sends an array of swaps per message
    // Room names are built only for families someone joined: most trades reach few rooms.
    if (hub.hasFamily('transaction')) {
      const row = (enrich: boolean): unknown => [streamSwap(state, tr, enrich, t)];
      withEnriched(`transaction:${t.mint}`, row);
      withEnriched(`transaction:${t.mint}:${tr.pool}`, row);
      withEnriched(`transaction:${t.mint}:${tr.pool}:${tr.wallet}`, row);
      withEnriched(`transaction:wallet:${tr.wallet}`, row);
    }
    publishPriceRooms(state, hub, t, tr);
    publishSafety(t, tr);
    if (hub.hasFamily('pnl')) publishPnl(state, hub, t, tr);
    if (t.status === 'curve') {
      const pct = curvePct(t);
      if (pct > maxBefore) curveAlerts(t, tr, maxBefore, pct);
      if (pct >= GRADUATING_MIN_PCT && hub.has('graduating')) hub.publish('graduating', { ...tokenWithPools(state, t), curvePercentage: pct });
      for (const [room, g] of graduatingRooms) {
        if (g.market === t.launchpad && Number(realSolLamports(t)) / 1e9 >= g.sol) hub.publish(room, { ...tokenWithPools(state, t), curvePercentage: pct });
      }
    }
  };

  const curveAlerts = (t: TokenState, tr: TradeRecord, before: number, after: number): void => {
    for (const market of [t.launchpad, 'launchpad']) {
      const rooms = curveRooms.get(market);
      if (!rooms) continue;
      for (const [room, threshold] of rooms) {
        if (threshold > before && threshold <= after) {
          hub.publish(room, { ...tokenWithPools(state, t), curvePercentage: after, threshold, tx: tr.tx, timestamp: tr.time });
        }
      }
    }
  };

  return {
    route(e) {
      switch (e.kind) {
        case 'launched':
          if (hub.has('latest')) hub.publish('latest', tokenWithPools(state, e.token));
          return;
        case 'trade':
          onTrade(e.token, e.trade, e.maxCurvePctBefore);
          return;
        case 'graduated':
          if (hub.has('graduated')) {
            const msg: TokenGraduated = {
              ...(tokenWithPools(state, e.token) as unknown as TokenGraduated),
              graduationTx: e.token.graduationTx ?? null,
              graduationTime: e.at,
            };
            hub.publish('graduated', msg);
          }
          return;
        case 'liquidity': {
          if (!hub.hasFamily('liquidity')) return;
          const ev = e.event;
          const rows = (enrich: boolean): unknown => [liquidityRow(state, ev, enrich)];
          withEnriched(`liquidity:${ev.mint}`, rows);
          withEnriched(`liquidity:${ev.mint}:${ev.pool}`, rows);
          withEnriched(`liquidity:${ev.mint}:${ev.pool}:${ev.wallet}`, rows);
          withEnriched(`liquidity:pool:${ev.pool}`, rows);
          withEnriched(`liquidity:wallet:${ev.wallet}`, rows);
          return;
        }
        case 'dca':
          publishDca(state, hub, e);
          return;
        case 'pm_crypto': {
          const room = `pm:crypto:${e.asset}`;
          if (hub.has(room)) hub.publish(room, { asset: e.asset, symbol: `${e.asset}USD`, price: e.price, timestamp: e.at });
          return;
        }
        case 'pm_price': {
          const room = `pm:market:${e.exchange}:${e.tokenId}:prices`;
          if (hub.has(room)) hub.publish(room, { exchange: e.exchange, tokenId: e.tokenId, price: e.price, timestamp: e.at });
          return;
        }
        case 'milestone':
          return;
      }
    },
  };
}
