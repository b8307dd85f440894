/**
 * The JSON-RPC methods the simulator serves, in the shapes a Solana node answers with. Amounts of
 * lamports are JSON numbers as on a node (exact below 2^53 lamports, about 9 million SOL); token
 * amounts are strings. The table joins the cluster methods below with the account methods
 * (account-methods.ts) and the transaction methods (transaction-methods.ts); parameters are read
 * in rpc-params.ts.
 */
import type { Ledger } from '../ledger/ledger-types.js';
import { accountMethods } from './account-methods.js';
import { invalidParams } from './rpc-error.js';
import { addressParam, rpcScope, type RpcMethod } from './rpc-params.js';
import { transactionMethods } from './transaction-methods.js';

export type { RpcMethod } from './rpc-params.js';

/** The method table for one ledger. */
export function rpcMethods(ledger: Ledger): Record<string, RpcMethod> {
  const scope = rpcScope(ledger);
  const { context } = scope;
  return {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': '2.2.0-chainpilot-sim', 'feature-set': 0 }),
    getSlot: () => ledger.slot(),
    getBlockHeight: () => ledger.blockHeight(),
    getLatestBlockhash: () => ({ context: context(), value: ledger.latestBlockhash() }),
    isBlockhashValid: (p) => {
      if (typeof p[0] !== 'string') invalidParams('blockhash must be a base58 string');
      return { context: context(), value: ledger.isBlockhashValid(p[0]) };
    },
    requestAirdrop: (p) => {
      const address = addressParam(p[0], 'address');
      if (typeof p[1] !== 'number' || !Number.isSafeInteger(p[1]) || p[1] <= 0) invalidParams('lamports must be a positive integer');
      return ledger.airdrop(address, BigInt(p[1]));
    },
    ...accountMethods(scope),
    ...transactionMethods(scope),
  };
}
