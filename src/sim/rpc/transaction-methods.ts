/**
 * The JSON-RPC methods about transactions: send and simulate, signature statuses, landed
 * transactions with their meta, the fee for a message, and recent prioritization fees.
 */
import { VersionedMessage } from '@solana/web3.js';
import { readComputeBudget, transactionFeeLamports } from '../ledger/fees.js';
import { invalidParams, RpcError } from './rpc-error.js';
import { addressParam, commitmentOf, config, MAX_MULTIPLE_ACCOUNTS, stringArray, wireBytes, type Config, type RpcMethod, type RpcScope } from './rpc-params.js';
import { encodeTransaction, loadedAddressesOf } from './rpc-transaction.js';
import { readLookupTable } from '../ledger/lookup-tables.js';

const MAX_SIGNATURES = 256;

function txErrorStatus(err: unknown): unknown {
  return err === null ? { Ok: null } : { Err: err };
}

/** The transaction methods of one ledger. */
export function transactionMethods({ ledger, context, encode }: RpcScope): Record<string, RpcMethod> {
  return {
    sendTransaction: (p) => {
      const c = config(p, 1);
      const result = ledger.send(wireBytes(p[0], c['encoding']), { skipPreflight: c['skipPreflight'] === true });
      if (!result.ok) throw new RpcError(result.rpcCode, result.message, result.data);
      return result.signature;
    },
    simulateTransaction: (p) => {
      const c = config(p, 1);
      const accountsCfg = c['accounts'] === undefined ? undefined : (c['accounts'] as Config);
      const addresses = accountsCfg
        ? stringArray(accountsCfg['addresses'], 'accounts.addresses', MAX_MULTIPLE_ACCOUNTS).map((a, i) => addressParam(a, `accounts.addresses[${i}]`))
        : [];
      const r = ledger.simulate(wireBytes(p[0], c['encoding']), {
        sigVerify: c['sigVerify'] === true,
        replaceRecentBlockhash: c['replaceRecentBlockhash'] === true,
        addresses,
      });
      if ('ok' in r) throw new RpcError(r.rpcCode, r.message, r.data);
      const accEnc = { encoding: accountsCfg?.['encoding'] ?? 'base64' };
      return {
        context: context(),
        value: {
          err: r.err,
          logs: r.logs,
          accounts: accountsCfg ? r.accounts.map((a) => encode(a, accEnc)) : null,
          unitsConsumed: Number(r.unitsConsumed),
          returnData: null,
          ...(r.replacementBlockhash ? { replacementBlockhash: r.replacementBlockhash } : {}),
        },
      };
    },
    getSignatureStatuses: (p) => {
      const sigs = stringArray(p[0], 'signatures', MAX_SIGNATURES);
      const search = config(p, 1)['searchTransactionHistory'] === true;
      return {
        context: context(),
        value: sigs.map((s) => {
          const st = ledger.signatureStatus(s, search);
          return st && { ...st, status: txErrorStatus(st.err) };
        }),
      };
    },
    getTransaction: (p) => {
      if (typeof p[0] !== 'string') invalidParams('signature must be a base58 string');
      const c = config(p, 1);
      const commitment = commitmentOf(c, 'finalized');
      if (commitment === 'processed') invalidParams('method does not support commitment below `confirmed`');
      const t = ledger.transaction(p[0], commitment);
      if (!t) return null;
      if (t.version === 0 && c['maxSupportedTransactionVersion'] === undefined) {
        throw new RpcError(
          -32015,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        );
      }
      const m = t.meta;
      return {
        slot: t.slot,
        blockTime: t.blockTimeSec,
        version: t.version,
        transaction: encodeTransaction(t.bytes, c['encoding']),
        meta: {
          err: m.err,
          status: txErrorStatus(m.err),
          fee: Number(m.fee),
          preBalances: m.preBalances.map(Number),
          postBalances: m.postBalances.map(Number),
          preTokenBalances: m.preTokenBalances,
          postTokenBalances: m.postTokenBalances,
          innerInstructions: [],
          logMessages: m.logMessages,
          rewards: [],
          loadedAddresses: loadedAddressesOf(t.bytes, (a) => {
            const account = ledger.account(a);
            return account && readLookupTable(account);
          }),
          computeUnitsConsumed: Number(m.computeUnitsConsumed),
        },
      };
    },
    getFeeForMessage: (p) => {
      if (typeof p[0] !== 'string') invalidParams('message must be a base64 string');
      let message: VersionedMessage;
      try {
        message = VersionedMessage.deserialize(Buffer.from(p[0], 'base64'));
      } catch {
        return invalidParams('message is not a base64-encoded transaction message');
      }
      const value = ledger.isBlockhashValid(message.recentBlockhash)
        ? Number(
            transactionFeeLamports(
              message.header.numRequiredSignatures,
              readComputeBudget(
                message.staticAccountKeys.map((k) => k.toBase58()),
                message.compiledInstructions,
              ),
            ),
          )
        : null;
      return { context: context(), value };
    },
    getRecentPrioritizationFees: (p) => {
      const accounts = p[0] === undefined ? undefined : stringArray(p[0], 'accounts', 128);
      return ledger.recentPrioritizationFees(accounts);
    },
  };
}
