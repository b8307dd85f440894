/**
 * The ledger's signature store: every signature it accepted (pending, dropped or landed), never
 * forgotten within a run, and what JSON-RPC reads from it: signature statuses by commitment,
 * landed transactions, and the recent prioritization fees of landed transactions.
 */
import type { BlockWindow } from './block-window.js';
import type { LandedTransactionView, SignatureStatusView } from './ledger-types.js';
import { commitmentReached, type ConfirmationStatus, type LandedRecord, type TxRecord } from './tx-record.js';

/** Fee samples kept (the newest); `getRecentPrioritizationFees` reads the last 150 slots of them. */
const MAX_FEE_SAMPLES = 10_000;
/** Slots `recentPrioritizationFees` looks back. */
const FEE_WINDOW_SLOTS = 150;

export interface SignatureStoreOptions {
  /** Slots after landing before `confirmed`. */
  readonly confirmAfterSlots: number;
  /** Slots after landing before `finalized`. */
  readonly finalizeAfterSlots: number;
  /** Slots a status stays visible to queries that do not search history. */
  readonly statusCacheSlots: number;
}

export interface SignatureStore {
  get(signature: string): TxRecord | undefined;
  /** Accepted but never landing (expired blockhash, unpaid fee, refused by the runtime, or a drop fault). */
  dropped(signature: string): void;
  /** Accepted, landing in `dueSlot`. */
  pending(signature: string, dueSlot: number): void;
  landed(record: LandedRecord): void;
  /** Remembers the unit price a landed transaction paid, for `recentPrioritizationFees`. */
  sampleFee(slot: number, cuPriceMicroLamports: bigint, writable: readonly string[]): void;
  status(signature: string, searchHistory: boolean): SignatureStatusView | null;
  transaction(signature: string, commitment: ConfirmationStatus): LandedTransactionView | undefined;
  recentPrioritizationFees(accounts?: readonly string[]): { slot: number; prioritizationFee: number }[];
}

/** Creates an empty store; `window` gives the current slot statuses are counted from. */
export function createSignatureStore(window: Pick<BlockWindow, 'slot'>, o: SignatureStoreOptions): SignatureStore {
  const records = new Map<string, TxRecord>();
  const recentFees: { slot: number; fee: bigint; writable: readonly string[] }[] = [];

  const statusOf = (r: LandedRecord): SignatureStatusView => {
    const confirmations = window.slot() - r.slot;
    const finalized = r.finalizeAtOnce || confirmations >= o.finalizeAfterSlots;
    const confirmationStatus: ConfirmationStatus = finalized ? 'finalized' : confirmations >= o.confirmAfterSlots ? 'confirmed' : 'processed';
    return { slot: r.slot, confirmations: finalized ? null : confirmations, err: r.meta.err, confirmationStatus };
  };

  return {
    get: (signature) => records.get(signature),
    dropped(signature) {
      records.set(signature, { state: 'dropped', signature });
    },
    pending(signature, dueSlot) {
      records.set(signature, { state: 'pending', signature, dueSlot });
    },
    landed(record) {
      records.set(record.signature, record);
    },
    sampleFee(slot, fee, writable) {
      recentFees.push({ slot, fee, writable });
      if (recentFees.length > MAX_FEE_SAMPLES) recentFees.splice(0, recentFees.length - MAX_FEE_SAMPLES);
    },
    status(signature, searchHistory) {
      const r = records.get(signature);
      if (!r || r.state !== 'landed') return null;
      if (!searchHistory && window.slot() - r.slot > o.statusCacheSlots) return null;
      return statusOf(r);
    },
    transaction(signature, commitment) {
      const r = records.get(signature);
      if (!r || r.state !== 'landed' || !r.bytes) return undefined;
      if (!commitmentReached(statusOf(r).confirmationStatus, commitment)) return undefined;
      return { slot: r.slot, blockTimeSec: r.blockTimeSec, bytes: r.bytes, version: r.version, meta: r.meta };
    },
    recentPrioritizationFees(accounts) {
      const bySlot = new Map<number, bigint>();
      const from = window.slot() - FEE_WINDOW_SLOTS;
      for (const f of recentFees) {
        if (f.slot < from) continue;
        if (accounts && accounts.length > 0 && !f.writable.some((w) => accounts.includes(w))) continue;
        const cur = bySlot.get(f.slot);
        bySlot.set(f.slot, cur === undefined || f.fee < cur ? f.fee : cur);
      }
      return [...bySlot].map(([slot, fee]) => ({ slot, prioritizationFee: Number(fee) }));
    },
  };
}
