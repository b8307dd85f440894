/**
 * A minimal JSON-RPC and swap adapter over HTTP for the executor's ports, used against the
 * embedded simulator until the real RPC and swap clients (src/client) land. It checks both the HTTP
 * status and the JSON-RPC `error` member, and turns lamport numbers into bigints at the boundary.
 */
import { Transaction, VersionedTransaction } from '@solana/web3.js';
import { ChainpilotError } from '../../../src/core/errors.js';
import type { BuiltSwap, LiveRpcPort, RpcAccount, SwapBuilderPort, TokenBalance } from '../../../src/executors/live/ports.js';

interface WireAccount {
  lamports: number;
  owner: string;
  data: [string, 'base64'];
  executable: boolean;
}

const account = (a: WireAccount | null): RpcAccount | null =>
  a ? { lamports: BigInt(a.lamports), owner: a.owner, data: a.data, executable: a.executable } : null;

const REQUEST_TIMEOUT_MS = 1_000;

export function simPorts(rpcUrl: string, swapUrl: string): LiveRpcPort & SwapBuilderPort & { calls: Map<string, number> } {
  const calls = new Map<string, number>();
  let id = 0;
  const call = async <T>(method: string, params: unknown[], signal?: AbortSignal): Promise<T> => {
    calls.set(method, (calls.get(method) ?? 0) + 1);
    let res: Response;
    try {
      res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
        // a client-side timeout, as every real client has: a held request becomes "unknown"
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]) : AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (e) {
      throw new ChainpilotError('CORE_TIMEOUT', `rpc ${method} failed: ${String(e)}`, { retry: method === 'sendTransaction' ? 'unknown_outcome' : 'retryable' });
    }
    const text = await res.text();
    let body: { result?: T; error?: { code: number; message: string } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new ChainpilotError('CORE_TIMEOUT', `rpc ${method}: HTTP ${res.status} with a non-JSON body`, { retry: method === 'sendTransaction' ? 'unknown_outcome' : 'retryable' });
    }
    if (!res.ok || body.error) {
      throw new ChainpilotError('CORE_TIMEOUT', `rpc ${method}: HTTP ${res.status} ${body.error?.message ?? ''}`, { retry: method === 'sendTransaction' ? 'unknown_outcome' : 'retryable' });
    }
    return body.result as T;
  };
  const sig = (o?: { signal?: AbortSignal }): AbortSignal | undefined => o?.signal;
  return {
    calls,
    sendTransaction: (tx, o) => call<string>('sendTransaction', [tx, { encoding: 'base64', skipPreflight: o?.skipPreflight ?? false, maxRetries: o?.maxRetries ?? 0 }], sig(o)),
    getSignatureStatuses: (s, o) => call('getSignatureStatuses', [s, { searchTransactionHistory: o?.searchTransactionHistory ?? false }], sig(o)),
    getBlockHeight: (o) => call<number>('getBlockHeight', [{ commitment: o?.commitment ?? 'confirmed' }], sig(o)),
    async simulateTransaction(tx, o) {
      const r = await call<{ context: { slot: number }; value: { err: unknown; logs: string[] | null; accounts: (WireAccount | null)[] | null; unitsConsumed?: number } }>(
        'simulateTransaction',
        [tx, { encoding: 'base64', sigVerify: o?.sigVerify ?? false, replaceRecentBlockhash: o?.replaceRecentBlockhash ?? false, commitment: o?.commitment ?? 'processed', ...(o?.accounts ? { accounts: o.accounts } : {}) }],
        sig(o),
      );
      return { context: r.context, value: { ...r.value, accounts: r.value.accounts ? r.value.accounts.map(account) : null } };
    },
    async getTransaction(s, o) {
      const r = await call<{
        slot: number;
        blockTime: number | null;
        transaction: [string, 'base64'];
        meta: { fee: number; err: unknown; preBalances: number[]; postBalances: number[]; preTokenBalances: TokenBalance[]; postTokenBalances: TokenBalance[] } | null;
      } | null>('getTransaction', [s, { encoding: 'base64', commitment: o?.commitment ?? 'confirmed', maxSupportedTransactionVersion: o?.maxSupportedTransactionVersion ?? 0 }], sig(o));
      if (!r) return null;
      const m = r.meta;
      return {
        slot: r.slot,
        blockTime: r.blockTime,
        transaction: r.transaction,
        meta: m
          ? { fee: BigInt(m.fee), err: m.err, preBalances: m.preBalances.map(BigInt), postBalances: m.postBalances.map(BigInt), preTokenBalances: m.preTokenBalances, postTokenBalances: m.postTokenBalances }
          : null,
      };
    },
    async getMultipleAccounts(addresses, o) {
      const r = await call<{ context: { slot: number }; value: (WireAccount | null)[] }>('getMultipleAccounts', [addresses, { encoding: 'base64', commitment: o?.commitment ?? 'processed' }], sig(o));
      return { context: r.context, value: r.value.map(account) };
    },
    async buildSwap(req, o): Promise<BuiltSwap> {
      const res = await fetch(swapUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ wallet: req.wallet, from: req.from, to: req.to, amount: req.amount, slippage: req.slippagePct, priorityFee: req.priorityFeeSol }),
        ...(o?.signal ? { signal: o.signal } : {}),
      });
      const json = (await res.json()) as { txn?: string };
      if (res.status !== 200 || typeof json.txn !== 'string') {
        throw new ChainpilotError('CORE_TIMEOUT', `swap service answered HTTP ${res.status}`, { retry: res.status >= 500 || res.status === 429 ? 'retryable' : 'not_retryable' });
      }
      const raw = Buffer.from(json.txn, 'base64');
      let transaction: VersionedTransaction | Transaction;
      try {
        transaction = Transaction.from(raw);
      } catch {
        transaction = VersionedTransaction.deserialize(raw);
      }
      return { transaction, raw, base64: json.txn };
    },
  };
}
