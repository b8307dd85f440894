/** Holders: top 100 (optionally enriched), paginated by amount, top without pools, multi counts. */
import { createHash } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import { z } from 'zod';
import { fromRaw } from '../../core/index.js';
import type { MarketState } from '../model/market-state.js';
import type { TokenState } from '../model/model-types.js';
import { holdersByBalance, pctOfSupply } from '../model/holdings.js';
import { priceUsd } from '../model/token-pricing.js';
import { pnlPositionView } from '../views/pnl-views.js';
import { identityOf, type JsonObject } from '../views/wire-views.js';
import { badParam, parseQuery, q } from './rest-errors.js';
import type { RestRouter } from './rest-router.js';
import { findToken, findTokenOrRetired } from './token-routes.js';

const base58 = getBase58Decoder();

/** A stable token-account address for a wallet and mint (the simulator has no real accounts here). */
export function tokenAccountOf(wallet: string, mint: string): string {
  return base58.decode(createHash('sha256').update(`${wallet}:${mint}:ata`).digest());
}

function holderRow(state: MarketState, t: TokenState, wallet: string, raw: bigint): JsonObject {
  const amount = fromRaw(raw, t.decimals);
  return {
    wallet,
    address: wallet,
    account: tokenAccountOf(wallet, t.mint),
    amount,
    amountRaw: raw.toString(),
    value: { quote: (Number(amount) * priceUsd(t, state.settings.solUsd)) / state.settings.solUsd, usd: Number(amount) * priceUsd(t, state.settings.solUsd) },
    percentage: pctOfSupply(t, raw),
  };
}

const ENRICH: Readonly<Record<string, { identity: boolean; pnl: boolean }>> = {
  identity: { identity: true, pnl: false },
  walletPnl: { identity: false, pnl: true },
  'identity,walletPnl': { identity: true, pnl: true },
  'walletPnl,identity': { identity: true, pnl: true },
  all: { identity: true, pnl: true },
  '*': { identity: true, pnl: true },
};

export function addHolderRoutes(r: RestRouter): void {
  r.add('GET', '/tokens/:token/holders', ({ state, params, query }) => {
    const t = findTokenOrRetired(state, params['token']!);
    if (!t) return { total: 0, accounts: [] };
    const e = query['enrich'] === undefined ? { identity: false, pnl: false } : ENRICH[query['enrich']];
    if (!e) throw badParam('enrich', 'use identity, walletPnl, identity,walletPnl, all or *');
    const accounts = holdersByBalance(t)
      .slice(0, 100)
      .map(([w, raw]) => {
        const row = holderRow(state, t, w, raw);
        if (e.identity) row['identity'] = identityOf(state, w, t);
        if (e.pnl) {
          const p = state.pnl.position(w, t.mint);
          row['pnl'] = p ? { token: pnlPositionView(state, p) } : null;
        }
        return row;
      });
    return { total: t.holderList.length, accounts };
  });
  r.add('GET', '/tokens/:token/holders/paginated', ({ state, params, query }) => {
    const t = findTokenOrRetired(state, params['token']!);
    if (!t) return { total: 0, accounts: [], cursor: null, nextCursor: null, hasMore: false };
    const f = parseQuery(
      z.object({ limit: q.int(1, 5000).default(1000), cursor: z.string().regex(/^\d+$/, 'send back the cursor you were given').optional() }).loose(),
      query,
    );
    const all = holdersByBalance(t);
    const offset = f.cursor === undefined ? 0 : Number(f.cursor);
    const page = all.slice(offset, offset + f.limit);
    const next = offset + f.limit < all.length ? String(offset + f.limit) : null;
    return { total: all.length, accounts: page.map(([w, raw]) => holderRow(state, t, w, raw)), cursor: next, nextCursor: next, hasMore: next !== null };
  });
  r.add('GET', '/tokens/:token/holders/top', ({ state, params }) => {
    const t = findToken(state, params['token']!);
    return holdersByBalance(t)
      .slice(0, 20)
      .map(([w, raw]) => holderRow(state, t, w, raw));
  });
  r.add('GET', '/holders/multi', ({ state, query }) => {
    const f = parseQuery(z.object({ tokens: q.list() }).loose(), query);
    if (f.tokens.length === 0 || f.tokens.length > 100) throw badParam('tokens', 'send 1 to 100 comma-separated token addresses');
    const out: Record<string, number> = {};
    for (const m of f.tokens) {
      const t = state.tokens.get(m);
      if (t) out[m] = t.holderList.length;
    }
    return out;
  });
}
