/**
 * The fill of a landed swap, read from the transaction's meta: exact lamports and raw token
 * amounts that actually moved for our wallet, and the fee actually paid.
 */
import { decimal } from '../../core/decimal.js';
import { lamports, rawAmount, type UnixMs } from '../../core/units.js';
import type { Fill, OrderIntent } from '../../engine/orders/execution-port.js';
import { WSOL_MINT, type TokenBalance, type TransactionMeta } from './ports.js';

/**
 * Computes the fill of `intent` from `meta`. Our wallet is the fee payer, so it is account 0.
 * `solAmount` is SOL out of (buy) or into (sell) the wallet excluding the fee; it includes rent of
 * any account the swap opened, which the wallet paid (`rentLamports`), and excludes rent that
 * came back from token accounts of ours the swap closed (`rentReturnedLamports`): a venue that
 * closes our emptied account must not look as if it paid us that account's rent.
 */
export function readFill(intent: OrderIntent, meta: TransactionMeta, wallet: string, signature: string, filledAt: UnixMs): Fill {
  const pre = meta.preBalances[0] ?? 0n;
  const post = meta.postBalances[0] ?? 0n;
  const tokensPre = ownedTokens(meta.preTokenBalances, intent.mint, wallet);
  const tokensPost = ownedTokens(meta.postTokenBalances, intent.mint, wallet);
  const buy = intent.side === 'buy';
  const returned = closedAccountRent(meta, wallet);
  const sol = buy ? pre - post - meta.fee + returned : post - pre + meta.fee - returned;
  const tokens = buy ? tokensPost - tokensPre : tokensPre - tokensPost;
  const solAmount = lamports(sol < 0n ? 0n : sol);
  const tokenAmount = rawAmount(tokens < 0n ? 0n : tokens);
  const rent = createdAccountRent(meta, wallet);
  const price = tokenAmount === 0n ? '0' : decimal(solAmount).shiftedBy(-9).div(decimal(tokenAmount).shiftedBy(-intent.decimals)).toFixed();
  return {
    intentId: intent.id,
    side: intent.side,
    mint: intent.mint,
    decimals: intent.decimals,
    solAmount,
    tokenAmount,
    feeLamports: lamports(meta.fee),
    price,
    filledAt,
    signature,
    ...(rent > 0n ? { rentLamports: lamports(rent) } : {}),
    ...(returned > 0n ? { rentReturnedLamports: lamports(returned) } : {}),
  };
}

/**
 * Rent the swap paid for token accounts it created for `owner`: the lamports of each of our token
 * accounts that held none before the transaction (a buy's new associated token account).
 */
export function createdAccountRent(meta: TransactionMeta, owner: string): bigint {
  let rent = 0n;
  const seen = new Set<number>();
  for (const b of meta.postTokenBalances) {
    if (b.owner !== owner || seen.has(b.accountIndex)) continue;
    seen.add(b.accountIndex);
    const pre = meta.preBalances[b.accountIndex] ?? 0n;
    const post = meta.postBalances[b.accountIndex] ?? 0n;
    if (pre === 0n && post > 0n) rent += post - (b.mint === WSOL_MINT ? BigInt(b.uiTokenAmount.amount) : 0n);
  }
  return rent;
}

/**
 * Rent returned to the wallet by token accounts of `owner` the swap closed: the lamports each held
 * before the transaction (its wrapped SOL excluded) when it has none after.
 */
export function closedAccountRent(meta: TransactionMeta, owner: string): bigint {
  let rent = 0n;
  const seen = new Set<number>();
  const remaining = new Set(meta.postTokenBalances.map((b) => b.accountIndex));
  for (const b of meta.preTokenBalances) {
    if (b.owner !== owner || seen.has(b.accountIndex) || remaining.has(b.accountIndex)) continue;
    seen.add(b.accountIndex);
    const pre = meta.preBalances[b.accountIndex] ?? 0n;
    const post = meta.postBalances[b.accountIndex] ?? 0n;
    if (post === 0n && pre > 0n) rent += pre - (b.mint === WSOL_MINT ? BigInt(b.uiTokenAmount.amount) : 0n);
  }
  return rent;
}

function ownedTokens(balances: readonly TokenBalance[], mint: string, owner: string): bigint {
  let sum = 0n;
  for (const b of balances) if (b.mint === mint && b.owner === owner) sum += BigInt(b.uiTokenAmount.amount);
  return sum;
}
