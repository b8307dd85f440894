/** Creates a freshly launched token on a bonding curve with its deployer and seeded character. */
import type { UnixMs } from '../../core/index.js';
import { simAddress, simSignature } from '../sim-ids.js';
import { slotAt, type MarketState } from './market-state.js';
import type { TokenFate, TokenState } from './model-types.js';

const SYLLABLES = ['mo', 'on', 'pe', 'pe', 'do', 'ge', 'ca', 'to', 'ba', 'zu', 'ki', 'ra', 'lu', 'na', 'fi', 'so', 'wa', 'ti', 'gro', 'bon'];
const WORDS = ['Cat', 'Dog', 'Frog', 'Moon', 'Pepe', 'Chad', 'Based', 'Rocket', 'Pixel', 'Wizard', 'Goblin', 'Banana'];

export const TOKEN_DECIMALS = 6;
export const SUPPLY_RAW = 1_000_000_000n * 10n ** 6n;
export const INITIAL_VIRTUAL_SOL = 30_000_000_000n;
export const INITIAL_VIRTUAL_TOKEN = 1_073_000_000n * 10n ** 6n;
export const INITIAL_REAL_TOKEN = 793_100_000n * 10n ** 6n;
const LAUNCHPADS = ['venue_a', 'venue_a', 'venue_a', 'venue_a', 'venue_c', 'venue_d-curve'];

/** Builds the token state for a launch at `at` (no trades yet). */
export function createToken(state: MarketState, at: UnixMs): TokenState {
  const r = state.random;
  const s = state.settings;
  const name = `${r.pick(WORDS)} ${cap(r.pick(SYLLABLES) + r.pick(SYLLABLES))}`;
  const symbol = (name.split(' ')[1] ?? 'TKN').toUpperCase().slice(0, 6);
  const reuseDeployer = state.deployers.length > 0 && r.chance(0.2);
  const deployer = reuseDeployer ? r.pick(state.deployers) : simAddress(r);
  if (!reuseDeployer) {
    state.deployers.push(deployer);
    if (state.deployers.length > s.maxDeployers) state.deployers.splice(0, state.deployers.length - s.maxDeployers);
  }
  const roll = r.next();
  const fate: TokenFate = roll < s.runnerShare ? 'runner' : roll < s.runnerShare + s.rugShare ? 'rug' : 'fizzle';
  const mint = simAddress(r);
  const poolId = simAddress(r);
  const hasImage = r.chance(0.9);
  const t: TokenState = {
    mint,
    name,
    symbol,
    decimals: TOKEN_DECIMALS,
    supplyRaw: SUPPLY_RAW,
    deployer,
    launchpad: r.pick(LAUNCHPADS),
    createdAt: at,
    createdTx: simSignature(r),
    createdSlot: slotAt(state, at),
    image: hasImage ? `https://img.sim.invalid/${mint}.png` : '',
    hasSocials: r.chance(0.5),
    fate,
    curve: {
      poolId,
      virtualSol: INITIAL_VIRTUAL_SOL,
      virtualToken: INITIAL_VIRTUAL_TOKEN,
      realSol: 0n,
      realToken: INITIAL_REAL_TOKEN,
      initialRealToken: INITIAL_REAL_TOKEN,
    },
    status: 'curve',
    maxCurvePct: 0,
    activity: fate === 'runner' ? 1.5 + r.next() * 2 : 0.3 + r.next() * 1.2,
    buyBias: fate === 'runner' ? 0.8 : 0.56,
    alive: true,
    rugged: false,
    ...(fate === 'rug' ? { rugAt: (at + r.int(30_000, 600_000)) as UnixMs } : {}),
    communityMessages: r.chance(0.3) ? r.int(1, 40) : 0,
    balances: new Map(),
    roles: new Map(),
    holderList: [],
    holderIndex: new Map(),
    athPriceUsd: 0,
    buys: 0,
    sells: 0,
    volumeLamports: 0n,
    milestones: [],
  };
  state.tokens.set(mint, t);
  state.poolToMint.set(poolId, mint);
  state.launched.push(t);
  state.active.push(t);
  state.activity.addLifecycle('created', at, t.launchpad, t.launchpad);
  return t;
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
