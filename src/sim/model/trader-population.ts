/** The synthetic wallets that trade: retail, bots, snipers, bundlers, KOLs and liquidity providers. */
import { simAddress } from '../sim-ids.js';
import type { MarketState } from './market-state.js';
import type { SimWallet, TraderRole } from './model-types.js';

const KOL_NAMES = ['Atlas', 'Birch', 'Cobalt', 'Dune', 'Ember', 'Fable', 'Garnet', 'Harbor', 'Indigo', 'Jasper', 'Kestrel', 'Lumen'];

const TAGS: Record<TraderRole, readonly string[]> = {
  retail: [],
  bot: ['bot'],
  sniper: ['bot', 'potential_bot'],
  bundler: ['potential_bot'],
  kol: ['kol'],
  insider: [],
  developer: ['developer'],
  lp: ['pool'],
  dca: [],
};

/** Adds a wallet with its identity tags to the state. */
export function addWallet(state: MarketState, role: TraderRole, address = simAddress(state.random), kolName?: string): SimWallet {
  const w: SimWallet = { address, role, tags: TAGS[role], ...(kolName ? { kolName } : {}) };
  state.wallets.set(address, w);
  let list = state.byRole.get(role);
  if (!list) state.byRole.set(role, (list = []));
  list.push(w);
  return w;
}

/** Creates the starting population from the settings. */
export function populate(state: MarketState): void {
  const s = state.settings;
  const counts: [TraderRole, number][] = [
    ['retail', s.retailWallets],
    ['bot', s.botWallets],
    ['sniper', s.sniperWallets],
    ['bundler', s.bundlerWallets],
    ['lp', s.lpWallets],
  ];
  for (const [role, n] of counts) for (let i = 0; i < n; i++) addWallet(state, role);
  for (let i = 0; i < s.kolWallets; i++) addWallet(state, 'kol', undefined, KOL_NAMES[i % KOL_NAMES.length]! + (i >= KOL_NAMES.length ? String(i) : ''));
}

/** A random wallet of a role (falls back to retail when the role is empty). */
export function pickWallet(state: MarketState, role: TraderRole): SimWallet {
  const list = state.byRole.get(role);
  if (list && list.length > 0) return state.random.pick(list);
  return state.random.pick(state.byRole.get('retail')!);
}
