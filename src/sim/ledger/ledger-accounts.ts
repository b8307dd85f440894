/**
 * The ledger's accounts inside LiteSVM: reading and writing raw accounts, SPL mints created for the
 * market's tokens, pool authorities and vaults, liquidity top-ups and balance snapshots for
 * transaction metadata. Remembers the slot of the last write to each account.
 */
import { createHash } from 'node:crypto';
import { Keypair, PublicKey } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '../../client/spl-token.js';
import type { Logger, Random } from '../../core/index.js';
import type { SimPool } from '../market-port.js';
import type { LedgerAccount, PoolAccounts } from './ledger-types.js';
import { LOOKUP_TABLE_PROGRAM, lookupTableData, readLookupTable } from './lookup-tables.js';
import type { NativeSvm } from './native-svm.js';
import type { ParsedTx } from './parsed-tx.js';
import { mintData, mintSupply, readTokenAccount, tokenAccountData, TOKEN_PROGRAM_ID, ACCOUNT_SIZE, MINT_SIZE } from './spl-accounts.js';
import type { SwapTerms } from './swap-memo.js';
import type { TokenBalanceJson } from './tx-record.js';

const TOKEN_PROGRAM = TOKEN_PROGRAM_ID.toBase58();

export interface Snapshot {
  readonly lamports: bigint[];
  readonly tokens: TokenBalanceJson[];
}

export interface LedgerAccounts {
  getAccount(address: string): LedgerAccount | undefined;
  setLamports(address: string, lamports: bigint): void;
  ensureMint(mint: string, decimals: number): PublicKey;
  poolAccounts(pool: SimPool): PoolAccounts;
  /** Pool accounts by pool id, when created. */
  pool(poolId: string): PoolAccounts | undefined;
  decimalsOf(mint: string): number;
  lastWriteSlot(address: string): number | undefined;
  markWritten(address: string, slot: number): void;
  /** Balances of every account of `tx`; with `before`, read-only accounts are taken from it (they cannot change). */
  snapshot(tx: ParsedTx, before?: Snapshot): Snapshot;
  ensureLiquidity(terms: SwapTerms, pool: PoolAccounts): void;
  /**
   * Settles a landed swap at `out`, the pool's output when it landed, instead of the quote at build
   * time the transaction's transfers moved (`terms.amountOut`): the difference goes from the pool to
   * `wallet` (or back), as a swap program computing its output at execution would have paid.
   */
  settleAtLanding(terms: SwapTerms, pool: PoolAccounts, wallet: string, out: bigint): void;
  /** A frozen address lookup table holding `addresses`, created on first use (the same list gives the same table). */
  lookupTable(addresses: readonly string[]): string;
  /** The addresses of the lookup table at `address`, or undefined when there is no table there. */
  tableAddresses(address: string): string[] | undefined;
}

/**
 * `raw` shifted left by `decimals`, trailing zeros trimmed: what core's fromRaw gives (tested
 * against it), without a BigNumber per token balance of every landed transaction.
 */
export function decimalText(raw: bigint, decimals: number): string {
  if (decimals === 0 || raw < 0n) return decimals === 0 ? raw.toString() : `-${decimalText(-raw, decimals)}`;
  const digits = raw.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, -decimals);
  const fraction = digits.slice(-decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** Wraps `svm`; `slot()` stamps writes; `keyRandom` derives the mint and pool authorities. */
export function createLedgerAccounts(svm: NativeSvm, slot: () => number, keyRandom: Random, log?: Logger): LedgerAccounts {
  const mintAuthority = Keypair.fromSeed(keyRandom.bytes(32));
  const pools = new Map<string, PoolAccounts>();
  const mintDecimals = new Map<string, number>();
  const rentToken = svm.rentExemptLamports(ACCOUNT_SIZE);
  const rentMint = svm.rentExemptLamports(MINT_SIZE);
  const rentSystem = svm.rentExemptLamports(0);

  const getAccount = (a: string): LedgerAccount | undefined => svm.account(a);
  const lastWrite = new Map<string, number>();
  const setAccount = (a: LedgerAccount): void => {
    lastWrite.set(a.address, slot());
    svm.setAccount(a);
  };
  const setLamports = (a: string, lamports: bigint): void => {
    const acc = getAccount(a);
    setAccount(acc ? { ...acc, lamports } : { address: a, lamports, owner: '11111111111111111111111111111111', data: new Uint8Array(), executable: false });
  };

  const ensureMint = (mint: string, decimals: number): PublicKey => {
    const key = new PublicKey(mint);
    if (!mintDecimals.has(mint)) {
      if (!getAccount(mint)) {
        setAccount({ address: mint, lamports: rentMint, owner: TOKEN_PROGRAM, data: mintData(mintAuthority.publicKey, 0n, decimals), executable: false });
      }
      mintDecimals.set(mint, decimals);
    }
    return key;
  };

  /** Mints `amountRaw` more into `tokenAccount` (keeps the mint's supply honest). */
  const mintInto = (mint: string, tokenAccount: string, owner: PublicKey, amountRaw: bigint): void => {
    const m = getAccount(mint);
    const decimals = mintDecimals.get(mint) ?? 0;
    if (m) setAccount({ ...m, data: mintData(mintAuthority.publicKey, mintSupply(m.data) + amountRaw, decimals) });
    const existing = getAccount(tokenAccount);
    const current = existing ? (readTokenAccount(existing.owner, existing.data)?.amountRaw ?? 0n) : 0n;
    setAccount({
      address: tokenAccount,
      lamports: existing?.lamports ?? rentToken,
      owner: TOKEN_PROGRAM,
      data: tokenAccountData(new PublicKey(mint), owner, current + amountRaw),
      executable: false,
    });
  };

  const tokenAmount = (tokenAccount: string): bigint => {
    const a = getAccount(tokenAccount);
    return a ? (readTokenAccount(a.owner, a.data)?.amountRaw ?? 0n) : 0n;
  };

  const poolAccounts = (pool: SimPool): PoolAccounts => {
    const known = pools.get(pool.poolId);
    if (known) return known;
    const mint = ensureMint(pool.mint, pool.decimals);
    const authority = Keypair.fromSeed(keyRandom.bytes(32));
    const tokenVault = getAssociatedTokenAddressSync(mint, authority.publicKey);
    mintInto(pool.mint, tokenVault.toBase58(), authority.publicKey, pool.tokenReserveRaw);
    setLamports(authority.publicKey.toBase58(), rentSystem + pool.solReserveLamports);
    const accounts: PoolAccounts = {
      poolId: pool.poolId,
      mint,
      decimals: pool.decimals,
      authority,
      tokenVault,
      authorityAddress: authority.publicKey.toBase58(),
      tokenVaultAddress: tokenVault.toBase58(),
    };
    pools.set(pool.poolId, accounts);
    log?.debug({ poolId: pool.poolId, mint: pool.mint }, 'ledger pool created');
    return accounts;
  };

  /** Lamports and token balances of every account of `tx`, in one read per account. */
  const snapshot = (tx: ParsedTx, before?: Snapshot): Snapshot => {
    const lamports: bigint[] = [];
    const tokens: TokenBalanceJson[] = [];
    // Programs hold no tokens: read their lamports only, not their (large) executable data.
    const programs = new Set(tx.instructions.map((ix) => ix.programIdIndex));
    tx.keyStrings.forEach((k, accountIndex) => {
      if (before && !tx.isWritable(accountIndex)) {
        lamports.push(before.lamports[accountIndex] ?? 0n);
        const t = before.tokens.find((b) => b.accountIndex === accountIndex);
        if (t) tokens.push(t);
        return;
      }
      if (programs.has(accountIndex)) {
        lamports.push(svm.balance(k, tx.keys[accountIndex]) ?? 0n);
        return;
      }
      const a = svm.account(k, tx.keys[accountIndex]);
      lamports.push(a?.lamports ?? 0n);
      const t = a && readTokenAccount(a.owner, a.data);
      if (!t) return;
      const decimals = mintDecimals.get(t.mint) ?? 0;
      const ui = decimalText(t.amountRaw, decimals);
      tokens.push({
        accountIndex,
        mint: t.mint,
        owner: t.owner,
        programId: TOKEN_PROGRAM,
        uiTokenAmount: { amount: t.amountRaw.toString(), decimals, uiAmount: Number(ui), uiAmountString: ui },
      });
    });
    return { lamports, tokens };
  };

  /** The vaults are a liquidity buffer: the model's reserves set prices; top up if a swap needs more. */
  const ensureLiquidity = (terms: SwapTerms, pool: PoolAccounts): void => {
    if (terms.side === 'buy') {
      const vault = pool.tokenVaultAddress;
      const have = tokenAmount(vault);
      if (have < terms.amountOut) mintInto(terms.mint, vault, pool.authority.publicKey, terms.amountOut - have);
    } else {
      const a = pool.authorityAddress;
      const have = svm.balance(a) ?? 0n;
      if (have < terms.amountOut + rentSystem) setLamports(a, terms.amountOut + rentSystem);
    }
  };

  const setTokenAmount = (mint: string, tokenAccount: string, owner: PublicKey, amountRaw: bigint): void => {
    const existing = getAccount(tokenAccount);
    setAccount({
      address: tokenAccount,
      lamports: existing?.lamports ?? rentToken,
      owner: TOKEN_PROGRAM,
      data: tokenAccountData(new PublicKey(mint), owner, amountRaw),
      executable: false,
    });
  };

  const settleAtLanding = (terms: SwapTerms, pool: PoolAccounts, wallet: string, out: bigint): void => {
    const delta = out - terms.amountOut;
    if (delta === 0n) return;
    if (terms.side === 'buy') {
      const owner = new PublicKey(wallet);
      const ata = getAssociatedTokenAddressSync(pool.mint, owner).toBase58();
      const vault = pool.tokenVaultAddress;
      if (delta > 0n && tokenAmount(vault) < delta) mintInto(terms.mint, vault, pool.authority.publicKey, delta - tokenAmount(vault));
      setTokenAmount(terms.mint, vault, pool.authority.publicKey, tokenAmount(vault) - delta);
      setTokenAmount(terms.mint, ata, owner, tokenAmount(ata) + delta);
    } else {
      const a = pool.authorityAddress;
      const have = svm.balance(a) ?? 0n;
      if (have < delta + rentSystem) setLamports(a, delta + rentSystem);
      setLamports(a, (svm.balance(a) ?? 0n) - delta);
      setLamports(wallet, (svm.balance(wallet) ?? 0n) + delta);
    }
  };

  const tables = new Map<string, string>();
  const lookupTable = (addresses: readonly string[]): string => {
    const id = addresses.join(',');
    let table = tables.get(id);
    if (!table) {
      // Derived from the list, not drawn from keyRandom: tables leave the pool keys of a seeded run as they were.
      table = Keypair.fromSeed(createHash('sha256').update(`lookup-table:${id}`).digest()).publicKey.toBase58();
      const data = lookupTableData(addresses);
      setAccount({ address: table, lamports: svm.rentExemptLamports(data.length), owner: LOOKUP_TABLE_PROGRAM, data, executable: false });
      tables.set(id, table);
      log?.debug({ table, addresses: addresses.length }, 'ledger lookup table created');
    }
    return table;
  };
  const tableAddresses = (address: string): string[] | undefined => {
    const a = getAccount(address);
    return a ? readLookupTable(a) : undefined;
  };

  return {
    getAccount,
    setLamports,
    lookupTable,
    tableAddresses,
    settleAtLanding,
    ensureMint,
    poolAccounts,
    pool: (poolId) => pools.get(poolId),
    decimalsOf: (mint) => mintDecimals.get(mint) ?? 0,
    lastWriteSlot: (a) => lastWrite.get(a),
    markWritten: (a, s) => lastWrite.set(a, s),
    snapshot,
    ensureLiquidity,
  };
}
