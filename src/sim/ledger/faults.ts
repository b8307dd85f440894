/**
 * Fault injection for the ledger, RPC and swap service. Faults come from two sources: seeded
 * rates (each send or request draws from the simulator's random source) and one-shot faults queued
 * on demand (`inject`), which tests use to get one exact behaviour. A queued fault wins over rates.
 */
import type { Random } from '../../core/index.js';

/** What happens to one accepted transaction. */
export type LandingFault =
  | { readonly kind: 'drop' }
  | { readonly kind: 'delay'; readonly slots: number }
  /** Lands in the last block its blockhash allows: after a client that gave up early stopped looking. */
  | { readonly kind: 'late' }
  /** Lands as a failed transaction (custom program error 6002) that still pays the fee. */
  | { readonly kind: 'fail' }
  /** Lands and reports `finalized` at once, skipping processed and confirmed. */
  | { readonly kind: 'finalizeAtOnce' };

/**
 * What a malicious swap builder adds to an otherwise honest swap, each aimed at our wallet:
 * `solTransfer` an extra SOL transfer out of the wallet; `tokenTransfer` a transfer out of another
 * token account the wallet owns; `approve` a delegate on that account; `setAuthority` a new owner
 * for it; `closeAccount` its closing with the rent sent away; `transferWithFee` a Token-2022
 * TransferCheckedWithFee out of a Token-2022 account of the wallet.
 */
export type MaliciousSwapVariant = 'solTransfer' | 'tokenTransfer' | 'approve' | 'setAuthority' | 'closeAccount' | 'transferWithFee';

/** Every malicious-builder variant. */
export const MALICIOUS_SWAP_VARIANTS: readonly MaliciousSwapVariant[] = [
  'solTransfer',
  'tokenTransfer',
  'approve',
  'setAuthority',
  'closeAccount',
  'transferWithFee',
];

/**
 * What a hostile swap service changes in an otherwise honest swap (src/sim/swap/hostile-swap.ts):
 * `sellToStranger` a sell whose tokens go to a stranger and pays us 1 lamport; `extraSol2m` an
 * extra 2 000 000-lamport transfer to a stranger; `underpay` 1 raw token (buy) or 1 lamport (sell)
 * for the full input; `otherMint` a buy of another tradable mint than asked; `durableNonce`
 * AdvanceNonceAccount first; `unknownProgram` a call to a program nobody allowed; `foreignPayer` a
 * stranger as fee payer; `hugePriorityFee` a unit price far above any budget; `token2022Fee` the
 * mint delivered by Token-2022 TransferCheckedWithFee whose stated fee keeps all but 1 raw token;
 * `closeForRent` a sell that takes our tokens, pays nothing and closes our emptied token account,
 * so the only SOL we get back is that account's own rent; `delegateTakeBack` / `delegateBurn` a
 * buy paid in full into our Token-2022 account and then moved out / burned in the same
 * transaction on the signature of the mint's permanent delegate (the pool authority, co-signing); `extraSigners` the
 * honest swap plus a Memo signed by 10 strangers, whose base fees our wallet pays;
 * `lookupTakeBack` a v0 buy paid in full into our existing associated token account, then as
 * much out of it to a stranger on the pool authority's signature, both accounts named only
 * through the transaction's address lookup table.
 */
export type HostileSwapVariant =
  | 'sellToStranger'
  | 'extraSol2m'
  | 'underpay'
  | 'otherMint'
  | 'durableNonce'
  | 'unknownProgram'
  | 'foreignPayer'
  | 'hugePriorityFee'
  | 'token2022Fee'
  | 'closeForRent'
  | 'delegateTakeBack'
  | 'delegateBurn'
  | 'extraSigners'
  | 'lookupTakeBack';

/** Every hostile swap variant. */
export const HOSTILE_SWAP_VARIANTS: readonly HostileSwapVariant[] = [
  'sellToStranger',
  'extraSol2m',
  'underpay',
  'otherMint',
  'durableNonce',
  'unknownProgram',
  'foreignPayer',
  'hugePriorityFee',
  'token2022Fee',
  'closeForRent',
  'delegateTakeBack',
  'delegateBurn',
  'extraSigners',
  'lookupTakeBack',
];

/** What happens to one JSON-RPC request. */
export interface RpcFault {
  readonly kind: 'error' | 'timeout';
  /** Only requests of this method (any method when absent). */
  readonly method?: string;
  /** For writes: the request takes effect first and only the answer is lost (unknown outcome). */
  readonly afterHandling?: boolean;
}

export interface FaultRates {
  readonly dropRate?: number;
  readonly delayRate?: number;
  readonly delaySlots?: number;
  readonly lateRate?: number;
  readonly failRate?: number;
  readonly finalizeAtOnceRate?: number;
  readonly rpcErrorRate?: number;
  readonly rpcTimeoutRate?: number;
  /** Share of /swap answers that carry an extra transfer out of the wallet (variant `solTransfer`). */
  readonly maliciousSwapRate?: number;
}

export interface FaultPlan {
  /** Queues a one-shot fault for the next matching transaction, request or swap build. */
  inject(
    fault:
      | LandingFault
      | { readonly kind: 'rpc'; readonly rpc: RpcFault }
      | { readonly kind: 'maliciousSwap'; readonly variant?: MaliciousSwapVariant }
      | { readonly kind: 'hostileSwap'; readonly variant: HostileSwapVariant },
  ): void;
  /** The fault for a transaction being accepted now, if any. */
  nextLanding(): LandingFault | undefined;
  /** The fault for a JSON-RPC request of `method`, if any. */
  nextRpc(method: string): RpcFault | undefined;
  /** The malicious addition the next /swap answer must carry, or false for an honest one. */
  nextSwapMalicious(): MaliciousSwapVariant | false;
  /** The hostile change the next /swap answer must carry, or false for an honest one. */
  nextSwapHostile(): HostileSwapVariant | false;
}

/** Creates a fault plan drawing from `random` at the given rates (all zero by default). */
export function createFaultPlan(random: Random, rates: FaultRates = {}): FaultPlan {
  const landing: LandingFault[] = [];
  const rpc: RpcFault[] = [];
  const malicious: MaliciousSwapVariant[] = [];
  const hostile: HostileSwapVariant[] = [];
  const roll = (p: number | undefined): boolean => p !== undefined && p > 0 && random.chance(p);

  return {
    inject(fault) {
      if (fault.kind === 'rpc') rpc.push(fault.rpc);
      else if (fault.kind === 'maliciousSwap') malicious.push(fault.variant ?? 'solTransfer');
      else if (fault.kind === 'hostileSwap') hostile.push(fault.variant);
      else landing.push(fault);
    },
    nextLanding() {
      const queued = landing.shift();
      if (queued) return queued;
      if (roll(rates.dropRate)) return { kind: 'drop' };
      if (roll(rates.delayRate)) return { kind: 'delay', slots: rates.delaySlots ?? 5 };
      if (roll(rates.lateRate)) return { kind: 'late' };
      if (roll(rates.failRate)) return { kind: 'fail' };
      if (roll(rates.finalizeAtOnceRate)) return { kind: 'finalizeAtOnce' };
      return undefined;
    },
    nextRpc(method) {
      const i = rpc.findIndex((f) => f.method === undefined || f.method === method);
      if (i >= 0) return rpc.splice(i, 1)[0];
      if (roll(rates.rpcErrorRate)) return { kind: 'error' };
      if (roll(rates.rpcTimeoutRate)) return { kind: 'timeout' };
      return undefined;
    },
    nextSwapMalicious() {
      const queued = malicious.shift();
      if (queued) return queued;
      return roll(rates.maliciousSwapRate) ? 'solTransfer' : false;
    },
    nextSwapHostile() {
      return hostile.shift() ?? false;
    },
  };
}
