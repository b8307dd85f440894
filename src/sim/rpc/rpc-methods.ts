/**
 * The JSON-RPC methods the simulator serves, in the shapes a Solana node answers with. Amounts of
 * lamports are JSON numbers as on a node (exact below 2^53 lamports, about 9 million SOL); token
 * amounts are strings.
 */
import { PublicKey, VersionedMessage } from '@solana/web3.js';
import { readComputeBudget, transactionFeeLamports } from '../ledger/fees.js';
import { base58Bytes } from '../../core/base58.js';
import type { Ledger, LedgerAccount } from '../ledger/ledger-types.js';
import { MINT_SIZE, TOKEN_PROGRAM_ID, mintSupply, readTokenAccount } from '../ledger/spl-accounts.js';
import { fromRaw } from '../../core/index.js';
import type { ConfirmationStatus } from '../ledger/tx-record.js';
import { accountEncoding, encodeAccount } from './rpc-accounts.js';
import { invalidParams, RpcError } from './rpc-error.js';
import { encodeTransaction } from './rpc-transaction.js';

export type RpcMethod = (params: readonly unknown[]) => unknown;

const MAX_SIGNATURES = 256;
const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_OWNERS = 250;
const MAX_V2_LIMIT = 10_000;

type Config = Record<string, unknown>;

function config(params: readonly unknown[], i: number): Config {
  const c = params[i];
  if (c === undefined || c === null) return {};
  if (typeof c !== 'object' || Array.isArray(c)) invalidParams(`parameter ${i} must be a configuration object`);
  return c as Config;
}

function addressParam(value: unknown, what: string): string {
  if (typeof value !== 'string') invalidParams(`${what} must be a base58 address string`);
  try {
    return new PublicKey(value).toBase58();
  } catch {
    return invalidParams(`${what} ${value} is not a valid base58 address`);
  }
}

function stringArray(value: unknown, what: string, max: number): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) invalidParams(`${what} must be an array of strings`);
  if (value.length > max) invalidParams(`${what} has ${value.length} entries; at most ${max} are allowed`);
  return value;
}

function commitmentOf(c: Config, fallback: ConfirmationStatus): ConfirmationStatus {
  const v = c['commitment'];
  if (v === undefined) return fallback;
  if (v === 'processed' || v === 'confirmed' || v === 'finalized') return v;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- echoes the caller's bad JSON value
  return invalidParams(`commitment ${String(v)} must be processed, confirmed or finalized`);
}

function wireBytes(value: unknown, encoding: unknown): Uint8Array {
  if (typeof value !== 'string') invalidParams('the transaction must be an encoded string');
  if (encoding === 'base64') return Buffer.from(value, 'base64');
  if (encoding === undefined || encoding === 'base58') {
    try {
      return new Uint8Array(base58Bytes(value));
    } catch {
      return invalidParams('the transaction is not valid base58; pass {encoding: "base64"} for base64');
    }
  }
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- echoes the caller's bad JSON value
  return invalidParams(`encoding ${String(encoding)} must be base58 or base64`);
}

function uiAmount(raw: bigint, decimals: number): { amount: string; decimals: number; uiAmount: number; uiAmountString: string } {
  const ui = fromRaw(raw, decimals);
  return { amount: raw.toString(), decimals, uiAmount: Number(ui), uiAmountString: ui };
}

function txErrorStatus(err: unknown): unknown {
  return err === null ? { Ok: null } : { Err: err };
}

/** Cursor pagination of the V2 account queries: the cursor is the last address of the previous page. */
function page(accounts: LedgerAccount[], c: Config, ledger: Ledger): { items: LedgerAccount[]; totalCount: number; cursor: string | null } {
  const limitRaw = c['limit'] ?? MAX_V2_LIMIT;
  if (typeof limitRaw !== 'number' || !Number.isInteger(limitRaw) || limitRaw < 1 || limitRaw > MAX_V2_LIMIT) {
    invalidParams(`limit must be an integer from 1 to ${MAX_V2_LIMIT}`);
  }
  const changedSince = c['changedSince'];
  if (changedSince !== undefined && typeof changedSince !== 'number') invalidParams('changedSince must be a slot number');
  let list = accounts;
  if (typeof changedSince === 'number') list = list.filter((a) => (ledger.lastWriteSlot(a.address) ?? 0) >= changedSince);
  if (c['excludeZero'] === true) {
    list = list.filter((a) => {
      const t = readTokenAccount(a.owner, a.data);
      return t ? t.amountRaw > 0n : a.lamports > 0n;
    });
  }
  list = [...list].sort((x, y) => (x.address < y.address ? -1 : x.address > y.address ? 1 : 0));
  const totalCount = list.length;
  const cursor = c['cursor'];
  if (cursor !== undefined && typeof cursor !== 'string') invalidParams('cursor must be the string returned by the previous page');
  if (typeof cursor === 'string') list = list.filter((a) => a.address > cursor);
  const items = list.slice(0, limitRaw);
  const next = list.length > items.length ? (items[items.length - 1]?.address ?? null) : null;
  return { items, totalCount, cursor: next };
}

function memcmpMatches(data: Uint8Array, f: Config): boolean {
  const offset = f['offset'];
  const bytes = f['bytes'];
  if (typeof offset !== 'number' || typeof bytes !== 'string') invalidParams('memcmp needs a numeric offset and a bytes string');
  let want: Buffer;
  try {
    want = f['encoding'] === 'base64' ? Buffer.from(bytes, 'base64') : Buffer.from(base58Bytes(bytes));
  } catch {
    return invalidParams('memcmp bytes are not valid base58');
  }
  return Buffer.from(data.subarray(offset, offset + want.length)).equals(want);
}

/** The method table for one ledger. */
export function rpcMethods(ledger: Ledger): Record<string, RpcMethod> {
  const context = () => ({ slot: ledger.slot(), apiVersion: '2.2.0' });
  const encode = (a: LedgerAccount | undefined | null, c: Config) => (a ? encodeAccount(a, accountEncoding(c['encoding']), (m) => ledger.decimalsOf(m)) : null);
  const tokenAccountsByOwner = (params: readonly unknown[]): { owner: string; accounts: LedgerAccount[]; c: Config } => {
    const owner = addressParam(params[0], 'owner');
    const filter = config(params, 1);
    const c = config(params, 2);
    let accounts: LedgerAccount[];
    if (typeof filter['mint'] === 'string') accounts = ledger.tokenAccountsByOwner(owner, addressParam(filter['mint'], 'mint'));
    else if (typeof filter['programId'] === 'string') {
      accounts = filter['programId'] === TOKEN_PROGRAM_ID.toBase58() ? ledger.tokenAccountsByOwner(owner) : [];
    } else return invalidParams('the filter must be {mint} or {programId}');
    return { owner, accounts, c };
  };

  return {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': '2.2.0-chainpilot-sim', 'feature-set': 0 }),
    getSlot: () => ledger.slot(),
    getBlockHeight: () => ledger.blockHeight(),
    getBalance: (p) => ({ context: context(), value: Number(ledger.balance(addressParam(p[0], 'address'))) }),
    getAccountInfo: (p) => {
      const c = config(p, 1);
      return { context: context(), value: encode(ledger.account(addressParam(p[0], 'address')), c) };
    },
    getMultipleAccounts: (p) => {
      const addresses = stringArray(p[0], 'addresses', MAX_MULTIPLE_ACCOUNTS).map((a, i) => addressParam(a, `addresses[${i}]`));
      const c = config(p, 1);
      return { context: context(), value: addresses.map((a) => encode(ledger.account(a), c)) };
    },
    getTokenAccountBalance: (p) => {
      const a = ledger.account(addressParam(p[0], 'address'));
      const t = a && readTokenAccount(a.owner, a.data);
      if (!t) return invalidParams('could not find a token account at that address');
      return { context: context(), value: uiAmount(t.amountRaw, ledger.decimalsOf(t.mint)) };
    },
    getTokenSupply: (p) => {
      const mint = addressParam(p[0], 'mint');
      const a = ledger.account(mint);
      if (!a || a.owner !== TOKEN_PROGRAM_ID.toBase58() || a.data.length !== MINT_SIZE) return invalidParams('could not find a mint at that address');
      return { context: context(), value: uiAmount(mintSupply(a.data), ledger.decimalsOf(mint)) };
    },
    getLatestBlockhash: () => ({ context: context(), value: ledger.latestBlockhash() }),
    isBlockhashValid: (p) => {
      if (typeof p[0] !== 'string') invalidParams('blockhash must be a base58 string');
      return { context: context(), value: ledger.isBlockhashValid(p[0]) };
    },
    getMinimumBalanceForRentExemption: (p) => {
      if (typeof p[0] !== 'number' || !Number.isInteger(p[0]) || p[0] < 0) invalidParams('data length must be a non-negative integer');
      return Number(ledger.rentExemptLamports(p[0]));
    },
    requestAirdrop: (p) => {
      const address = addressParam(p[0], 'address');
      if (typeof p[1] !== 'number' || !Number.isSafeInteger(p[1]) || p[1] <= 0) invalidParams('lamports must be a positive integer');
      return ledger.airdrop(address, BigInt(p[1]));
    },
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
          loadedAddresses: { writable: [], readonly: [] },
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
    getTokenAccountsByOwner: (p) => {
      const { accounts, c } = tokenAccountsByOwner(p);
      return { context: context(), value: accounts.map((a) => ({ pubkey: a.address, account: encode(a, c) })) };
    },
    getTokenAccountsByOwnerV2: (p) => {
      const { accounts, c } = tokenAccountsByOwner(p);
      const { items, totalCount, cursor } = page(accounts, c, ledger);
      return { context: context(), value: { accounts: items.map((a) => ({ pubkey: a.address, account: encode(a, c) })), totalCount, cursor } };
    },
    getTokenAccountsByOwners: (p) => {
      const owners = stringArray(p[0], 'wallets', MAX_OWNERS).map((w, i) => addressParam(w, `wallets[${i}]`));
      const mint = addressParam(p[1], 'mint');
      const decimals = ledger.decimalsOf(mint);
      return {
        context: context(),
        value: owners.map((owner) => {
          const accounts = ledger.tokenAccountsByOwner(owner, mint).map((a) => ({
            pubkey: a.address,
            mint,
            amount: (readTokenAccount(a.owner, a.data)?.amountRaw ?? 0n).toString(),
            decimals,
            slot: ledger.lastWriteSlot(a.address) ?? null,
          }));
          return { owner, accounts: accounts.length > 0 ? accounts : [{ pubkey: null, mint, amount: '0', decimals, slot: null }] };
        }),
      };
    },
    getProgramAccountsV2: (p) => {
      const programId = addressParam(p[0], 'programId');
      const c = config(p, 1);
      const filters = c['filters'] ?? [];
      if (!Array.isArray(filters)) invalidParams('filters must be an array');
      const accounts = ledger.programAccounts(programId).filter((a) =>
        (filters as Config[]).every((f) => {
          if (typeof f['dataSize'] === 'number') return a.data.length === f['dataSize'];
          if (f['memcmp'] && typeof f['memcmp'] === 'object') return memcmpMatches(a.data, f['memcmp'] as Config);
          return invalidParams('each filter must be {dataSize} or {memcmp}');
        }),
      );
      const { items, totalCount, cursor } = page(accounts, c, ledger);
      return { context: context(), value: { accounts: items.map((a) => ({ pubkey: a.address, account: encode(a, c) })), totalCount, cursor } };
    },
  };
}
