/**
 * Safety signal rooms (`holders`, `top10`, `dev_holding`, `sniper`, `insider`, `bundlers`), published
 * when the value they report changes, with the previous value alongside.
 */
import type { SafetyUpdate } from '../../client/datastream/index.js';
import type { MarketState } from '../model/market-state.js';
import type { TokenState, TradeRecord, TraderRole } from '../model/model-types.js';
import { pctOfSupply, roleBalance, topBalancesSum } from '../model/holdings.js';
import type { DatastreamHub } from './datastream-hub.js';

export type SafetyPublisher = (t: TokenState, tr: TradeRecord) => void;

/** The last published values are pruned of unsubscribed rooms when they exceed this many (memory stays bounded over weeks). */
export const SAFETY_LAST_VALUES_MAX = 20_000;

export function createSafetyPublisher(_state: MarketState, hub: DatastreamHub): SafetyPublisher {
  /** Last value published per subscribed room (a room left and joined again starts with no previous value). */
  const last = new Map<string, number>();
  const changed = (room: string, value: number): number | undefined | false => {
    const prev = last.get(room);
    if (prev === value) return false;
    if (prev === undefined && last.size >= SAFETY_LAST_VALUES_MAX) {
      for (const r of last.keys()) if (!hub.has(r)) last.delete(r);
    }
    last.set(room, value);
    return prev;
  };
  const roleRoom = (t: TokenState, tr: TradeRecord, role: TraderRole, prefix: string): void => {
    if (!hub.hasFamily(prefix)) return;
    const room = `${prefix}:${t.mint}`;
    if (!hub.has(room) || !t.roles.get(tr.wallet)?.has(role)) return;
    const all = roleBalance(t, role);
    const total = pctOfSupply(t, all.raw);
    const prev = changed(room, total);
    if (prev === false) return;
    const bal = t.balances.get(tr.wallet) ?? 0n;
    const change = tr.side === 'buy' ? tr.tokenRaw : -tr.tokenRaw;
    const key = role === 'bundler' ? 'totalBundlerPercentage' : role === 'sniper' ? 'totalSniperPercentage' : 'totalInsiderPercentage';
    // like the service, sniper and insider messages carry both totals; each room's figure is its own
    const both =
      role === 'bundler'
        ? {}
        : { totalSniperPercentage: pctOfSupply(t, roleBalance(t, 'sniper').raw), totalInsiderPercentage: pctOfSupply(t, roleBalance(t, 'insider').raw) };
    const msg: SafetyUpdate = {
      token: t.mint,
      wallet: tr.wallet,
      currentAmount: bal.toString(),
      previousAmount: (bal - change > 0n ? bal - change : 0n).toString(),
      currentPercentage: pctOfSupply(t, bal),
      previousPercentage: pctOfSupply(t, bal - change > 0n ? bal - change : 0n),
      currentCount: all.wallets.length,
      previousCount: all.wallets.length,
      ...both,
      [key]: total,
      previousTotalPercentage: prev ?? null,
      timestamp: tr.time,
    };
    hub.publish(room, msg);
  };
  return (t, tr) => {
    const h = hub.hasFamily('holders') ? `holders:${t.mint}` : '';
    if (h && hub.has(h)) {
      const prev = changed(h, t.holderList.length);
      if (prev !== false) hub.publish(h, { token: t.mint, total: t.holderList.length, previous: prev ?? null, timestamp: tr.time });
    }
    const top = hub.hasFamily('top10') ? `top10:${t.mint}` : '';
    if (top && hub.has(top)) {
      const pct = pctOfSupply(t, topBalancesSum(t, 10));
      const prev = changed(top, pct);
      if (prev !== false)
        hub.publish(top, { token: t.mint, totalPercentage: pct, previousPercentage: prev ?? null, timestamp: tr.time } satisfies SafetyUpdate);
    }
    const dev = tr.wallet === t.deployer && hub.hasFamily('dev_holding') ? `dev_holding:${t.mint}` : '';
    if (dev && hub.has(dev)) {
      const bal = t.balances.get(t.deployer) ?? 0n;
      const pct = pctOfSupply(t, bal);
      const prev = changed(dev, pct);
      if (prev !== false)
        hub.publish(dev, {
          token: t.mint,
          creator: t.deployer,
          deployer: t.deployer,
          amount: bal.toString(),
          percentage: pct,
          previousPercentage: prev ?? null,
          timestamp: tr.time,
        });
    }
    roleRoom(t, tr, 'sniper', 'sniper');
    roleRoom(t, tr, 'insider', 'insider');
    roleRoom(t, tr, 'bundler', 'bundlers');
  };
}
