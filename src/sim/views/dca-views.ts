/** DCA order shape, shared by REST and the `dca:*` rooms. */
import { fromRaw } from '../../core/index.js';
import type { MarketState } from '../model/market-state.js';
import type { DcaOrder } from '../model/model-types.js';
import { DCA_PROGRAM_ID } from '../model/dca-dynamics.js';
import type { JsonObject } from './wire-views.js';

export function dcaOrderView(state: MarketState, o: DcaOrder): JsonObject {
  const t = state.tokens.get(o.outputMint);
  const solUsd = state.settings.solUsd;
  return {
    address: o.address,
    programId: DCA_PROGRAM_ID,
    program: 'dca_program_a',
    wallet: o.wallet,
    inputMint: o.inputMint,
    outputMint: o.outputMint,
    status: o.status,
    deposited: fromRaw(o.depositedLamports, 9),
    depositedRaw: o.depositedLamports.toString(),
    perCycle: fromRaw(o.perCycleLamports, 9),
    perCycleRaw: o.perCycleLamports.toString(),
    cycleSeconds: o.cycleMs / 1000,
    used: fromRaw(o.usedLamports, 9),
    usedRaw: o.usedLamports.toString(),
    remaining: fromRaw(o.depositedLamports - o.usedLamports, 9),
    remainingRaw: (o.depositedLamports - o.usedLamports).toString(),
    received: fromRaw(o.receivedRaw, t?.decimals ?? 6),
    receivedRaw: o.receivedRaw.toString(),
    fills: o.fills,
    progress: Number((o.usedLamports * 10_000n) / o.depositedLamports) / 100,
    depositedUsd: (Number(o.depositedLamports) / 1e9) * solUsd,
    usedUsd: (Number(o.usedLamports) / 1e9) * solUsd,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    nextFillAt: o.status === 'active' ? o.nextFillAt : null,
  };
}
