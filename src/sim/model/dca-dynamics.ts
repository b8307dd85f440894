/** DCA orders (program `dca_program_a`): opened by wallets on graduated tokens, filled per cycle, closed when spent. */
import type { UnixMs } from '../../core/index.js';
import { simAddress, simSignature } from '../sim-ids.js';
import { emit, type MarketState } from './market-state.js';
import type { DcaOrder, TokenState } from './model-types.js';
import { addWallet, pickWallet } from './trader-population.js';

export const DCA_PROGRAM_ID = 'DCA265Vj8a9CEuX1eb1LWRnDT7uK6q1xMipnNyatn23M';
export const SOL_MINT = 'So11111111111111111111111111111111111111112';
const OPENS_PER_HOUR = 24;
/** DCA wallets made so far are re-used once there are this many (the population stays bounded). */
export const MAX_DCA_WALLETS = 200;

/** Opens, fills and closes DCA orders for the slot at `at`. `buy` executes one cycle and returns nothing. */
export function stepDca(state: MarketState, at: UnixMs, _slot: number, buy: (t: TokenState, wallet: string, lamports: bigint) => void): void {
  const r = state.random;
  if (r.chance((OPENS_PER_HOUR * state.settings.slotMs) / 3_600_000)) {
    const candidates = state.active.filter((t) => t.status === 'graduated');
    if (candidates.length > 0) {
      const t = r.pick(candidates);
      const fresh = r.chance(0.5) && (state.byRole.get('dca')?.length ?? 0) < MAX_DCA_WALLETS;
      const wallet = fresh ? addWallet(state, 'dca').address : pickWallet(state, 'dca').address;
      const cycles = r.int(3, 10);
      const per = BigInt(r.int(1, 5)) * 100_000_000n;
      const cycleMs = r.int(30, 120) * 1000;
      const order: DcaOrder = {
        address: simAddress(r),
        wallet,
        inputMint: SOL_MINT,
        outputMint: t.mint,
        depositedLamports: per * BigInt(cycles),
        perCycleLamports: per,
        cycleMs,
        createdAt: at,
        usedLamports: 0n,
        receivedRaw: 0n,
        fills: 0,
        status: 'active',
        nextFillAt: (at + cycleMs) as UnixMs,
        updatedAt: at,
      };
      state.dca.set(order.address, order);
      emit(state, { kind: 'dca', order, eventName: 'opened', at, tx: simSignature(r) });
    }
  }
  for (const order of state.dca.values()) {
    if (order.status !== 'active' || order.nextFillAt > at) continue;
    const t = state.tokens.get(order.outputMint);
    if (!t || t.status === 'migrating') continue;
    const before = t.balances.get(order.wallet) ?? 0n;
    buy(t, order.wallet, order.perCycleLamports);
    order.receivedRaw += (t.balances.get(order.wallet) ?? 0n) - before;
    order.usedLamports += order.perCycleLamports;
    order.fills += 1;
    order.updatedAt = at;
    order.nextFillAt = (at + order.cycleMs) as UnixMs;
    emit(state, { kind: 'dca', order, eventName: 'filled', at, tx: simSignature(r) });
    if (order.usedLamports >= order.depositedLamports) {
      order.status = 'completed';
      emit(state, { kind: 'dca', order, eventName: 'closed', at, tx: simSignature(r) });
    }
  }
}
