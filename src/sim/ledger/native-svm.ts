/**
 * LiteSVM's native runtime, driven with raw bytes. The `litesvm` package's class wraps every call
 * in @solana/kit conversions: base58 text to address bytes and back for each account read, and a
 * decode of the wire transaction into a kit object followed by an encode back to the same bytes
 * for each send. The ledger already holds the bytes (and cached key text, client/key-text.ts), so it calls
 * the native binding the wrapper calls, with the same settings.
 */
import { Account, LiteSvm, type FailedTransactionMetadata, type SimulatedTransactionInfo, type TransactionMetadata } from 'litesvm/dist/internal.js';
import { keyBytes, keyText } from '../../client/key-text.js';
import type { LedgerAccount } from './ledger-types.js';

export type { FailedTransactionMetadata, SimulatedTransactionInfo, TransactionMetadata };

export interface NativeSvm {
  latestBlockhash(): string;
  expireBlockhash(): void;
  rentExemptLamports(dataLen: number): bigint;
  /** The account at `address` (base58), or undefined when it does not exist. */
  account(address: string, bytes?: Uint8Array): LedgerAccount | undefined;
  /** Lamports at `address`, or undefined when the account does not exist. */
  balance(address: string, bytes?: Uint8Array): bigint | undefined;
  setAccount(a: LedgerAccount): void;
  programAccounts(programId: string): LedgerAccount[];
  /** Executes wire bytes (signatures and blockhash are the ledger's to check). */
  send(wire: Uint8Array, version: 'legacy' | 0): TransactionMetadata | FailedTransactionMetadata;
  simulate(wire: Uint8Array, version: 'legacy' | 0): SimulatedTransactionInfo | FailedTransactionMetadata;
}

/** Converts a native account (owner as bytes) into the ledger's view. */
export function ledgerAccount(address: string, a: Account): LedgerAccount {
  return { address, lamports: a.lamports(), owner: keyText(a.owner()), data: a.data(), executable: a.executable() };
}

/** A runtime with signature and blockhash checks off (the ledger does both) and no history. */
export function createNativeSvm(): NativeSvm {
  const svm = new LiteSvm();
  svm.setSigverify(false);
  svm.setBlockhashCheck(false);
  svm.setTransactionHistory(0n);
  return {
    latestBlockhash: () => svm.latestBlockhash(),
    expireBlockhash: () => svm.expireBlockhash(),
    rentExemptLamports: (len) => svm.minimumBalanceForRentExemption(BigInt(len)),
    account(address, bytes) {
      const a = svm.getAccount(bytes ?? keyBytes(address));
      return a === null ? undefined : ledgerAccount(address, a);
    },
    balance: (address, bytes) => svm.getBalance(bytes ?? keyBytes(address)) ?? undefined,
    setAccount(a) {
      svm.setAccount(keyBytes(a.address), new Account(a.lamports, a.data, keyBytes(a.owner), a.executable, 0n));
    },
    programAccounts: (programId) => svm.getProgramAccounts(keyBytes(programId)).map((x) => ledgerAccount(keyText(x.address), x.account())),
    send: (wire, version) => (version === 'legacy' ? svm.sendLegacyTransaction(wire) : svm.sendVersionedTransaction(wire)),
    simulate: (wire, version) => (version === 'legacy' ? svm.simulateLegacyTransaction(wire) : svm.simulateVersionedTransaction(wire)),
  };
}
