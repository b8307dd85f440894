/** GET /holders/chart?token=: holder count over time, replayed from the token's trade tape (up to 1000 recent points). */
import { z } from 'zod';
import { parseQuery } from './rest-errors.js';
import type { RestRouter } from './rest-router.js';
import { findToken } from './token-routes.js';

const MAX_POINTS = 1000;

export function addHolderChartRoute(r: RestRouter): void {
  r.add('GET', '/holders/chart', ({ state, query }) => {
    const f = parseQuery(z.object({ token: z.string().min(1) }).loose(), query);
    const t = findToken(state, f.token);
    const balances = new Map<string, bigint>();
    const points: { time: number; holders: number }[] = [];
    for (const tr of state.tradesByToken.get(t.mint) ?? []) {
      const next = (balances.get(tr.wallet) ?? 0n) + (tr.side === 'buy' ? tr.walletTokenRaw : -tr.walletTokenRaw);
      if (next > 0n) balances.set(tr.wallet, next);
      else balances.delete(tr.wallet);
      const sec = Math.floor(tr.time / 1000);
      const last = points.at(-1);
      if (last && last.time === sec) last.holders = balances.size;
      else points.push({ time: sec, holders: balances.size });
    }
    return { token: t.mint, points: points.slice(-MAX_POINTS) };
  });
}
