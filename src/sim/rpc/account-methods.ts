/**
 * The JSON-RPC methods that read accounts: balances, account data in every encoding, token
 * balances and supplies, token accounts by owner (V1, V2 with cursor pages, and by many owners),
 * program accounts with filters, and the rent-exempt minimum.
 */
import { base58Bytes } from '../../core/base58.js';
import { fromRaw } from '../../core/index.js';
import type { Ledger, LedgerAccount } from '../ledger/ledger-types.js';
import { MINT_SIZE, TOKEN_PROGRAM_ID, mintSupply, readTokenAccount } from '../ledger/spl-accounts.js';
import { invalidParams } from './rpc-error.js';
import { addressParam, config, MAX_MULTIPLE_ACCOUNTS, stringArray, type Config, type RpcMethod, type RpcScope } from './rpc-params.js';

const MAX_OWNERS = 250;
const MAX_V2_LIMIT = 10_000;

function uiAmount(raw: bigint, decimals: number): { amount: string; decimals: number; uiAmount: number; uiAmountString: string } {
  const ui = fromRaw(raw, decimals);
  return { amount: raw.toString(), decimals, uiAmount: Number(ui), uiAmountString: ui };
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

/** The account methods of one ledger. */
export function accountMethods({ ledger, context, encode }: RpcScope): Record<string, RpcMethod> {
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
    getMinimumBalanceForRentExemption: (p) => {
      if (typeof p[0] !== 'number' || !Number.isInteger(p[0]) || p[0] < 0) invalidParams('data length must be a non-negative integer');
      return Number(ledger.rentExemptLamports(p[0]));
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
