/** Reads what a live run left behind: the journal, the chain's view of every signature, balances. */
import Database from 'better-sqlite3';
import { getAssociatedTokenAddressSync } from '../../src/client/spl-token.js';
import { PublicKey } from '@solana/web3.js';
import type { LiveRunView } from '../../src/runtime/shell/run-live.js';

export interface Row {
  id: string;
  state: string;
  intent_json: string;
  fill_json: string | null;
}
export interface AttemptRow {
  intent_id: string;
  signature: string;
  state: string;
}

export interface ChainCheck {
  intents: Row[];
  attempts: AttemptRow[];
  /** Signatures that landed on the ledger (status found with history search, err null). */
  landedOnChain: Set<string>;
  failedOnChain: Set<string>;
  walletLamports: bigint;
  tokensOnChain: Map<string, bigint>;
  portfolioTokens: Map<string, bigint>;
  cashLamports: bigint;
}

/** Journal rows, on-chain outcome of every signature, wallet balances and the portfolio's view. */
export async function readChain(view: LiveRunView, storePath: string): Promise<ChainCheck> {
  const db = new Database(storePath, { readonly: true });
  const intents = db.prepare('SELECT id, state, intent_json, fill_json FROM intents').all() as Row[];
  const attempts = db.prepare('SELECT intent_id, signature, state FROM attempts').all() as AttemptRow[];
  db.close();
  const sigs = attempts.map((a) => a.signature);
  const { value: statuses } = await view.rpc.getSignatureStatuses(sigs, { searchTransactionHistory: true });
  const landedOnChain = new Set<string>();
  const failedOnChain = new Set<string>();
  statuses.forEach((s, i) => {
    if (s === null) return;
    (s.err === null ? landedOnChain : failedOnChain).add(sigs[i]!);
  });
  const mints = new Set(intents.map((r) => (JSON.parse(r.intent_json) as { mint: string }).mint));
  const tokensOnChain = new Map<string, bigint>();
  for (const mint of mints) {
    const ata = getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(view.wallet)).toBase58();
    const { value } = await view.rpc.getAccountInfo(ata);
    if (!value) continue;
    const data = Buffer.from(value.data[0], 'base64');
    tokensOnChain.set(mint, data.readBigUInt64LE(64)); // SPL token account: mint 32, owner 32, amount u64
  }
  const portfolioTokens = new Map<string, bigint>();
  for (const p of view.engine.portfolio.open()) portfolioTokens.set(p.mint, (portfolioTokens.get(p.mint) ?? 0n) + p.tokenRaw);
  return {
    intents,
    attempts,
    landedOnChain,
    failedOnChain,
    tokensOnChain,
    portfolioTokens,
    walletLamports: (await view.rpc.getBalance(view.wallet, { commitment: 'confirmed' })).value,
    cashLamports: view.engine.portfolio.totals().cashLamports,
  };
}
