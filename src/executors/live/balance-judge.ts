/**
 * The simulate half of inspection: our wallet's SOL and every token account our wallet owns,
 * before and after the simulation, judged against the intent (what may leave, what must arrive,
 * what rent the transaction pays or gets back). Pure: no I/O.
 */
import { keyText } from '../../client/key-text.js';
import type { OrderIntent } from '../../engine/orders/execution-port.js';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './instruction-checks.js';
import type { RpcAccount } from './ports.js';
import { WSOL_MINT } from './ports.js';
import { closable, type SwapAccounts } from './swap-accounts.js';
import { reject, type InspectionResult } from './inspection-result.js';

/**
 * True when two reads of the same addresses found our wallet and every token account our wallet
 * owns (in either read) unchanged: lamports, owner, data, existence. Other accounts (pool
 * vaults, say) may change under any trade and do not enter the balance comparison.
 */
export function sameOwnAccounts(wallet: string, a: readonly (RpcAccount | null)[], b: readonly (RpcAccount | null)[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? null;
    const y = b[i] ?? null;
    if (i > 0 && !ownedTokenAccount(x, wallet) && !ownedTokenAccount(y, wallet)) continue;
    if (x === null || y === null) {
      if (x !== y) return false;
    } else if (x.lamports !== y.lamports || x.owner !== y.owner || x.data[0] !== y.data[0]) return false;
  }
  return true;
}

/**
 * Compares the wallet's SOL and every token account our wallet owns, before and after the
 * simulation, closed ones included. Rent is never trading money: lamports a created token account
 * of ours holds after the transaction are rent paid, lamports a closed one held before (its wrapped
 * SOL excluded) are rent returned. A buy's SOL cost and a sell's proceeds are measured with the
 * returned rent taken out, so a venue cannot pay us with our own account's rent; rent paid is
 * allowed only for our new account of the intent's mint, at most `rentBudget`.
 */
export function judgeBalances(
  intent: OrderIntent,
  ours: SwapAccounts,
  watched: readonly string[],
  pre: readonly (RpcAccount | null)[],
  post: readonly (RpcAccount | null)[],
  fees: { readonly budget: bigint; readonly paid: bigint },
  bounds: { readonly rentBudget: bigint; readonly minOut: bigint },
  blockhash: string,
  priorityFee: bigint,
): InspectionResult {
  const wallet = ours.wallet;
  const feeBudget = fees.budget;
  const { minOut } = bounds;
  let created = 0n; // rent into new token accounts of ours of the intent's mint (allowed up to rentBudget)
  let paid = 0n; // rent into every new token account of ours
  let returned = 0n; // rent out of every closed token account of ours
  const solDelta = post[0]!.lamports - pre[0]!.lamports;
  let mintDelta = 0n; // the intent's mint, over every token account our wallet owns
  let wsolDelta = 0n;
  let inputTaken = 0n;
  for (let i = 1; i < watched.length; i++) {
    const address = watched[i]!;
    if (!ownedTokenAccount(pre[i] ?? null, wallet) && !ownedTokenAccount(post[i] ?? null, wallet)) continue; // pool vaults and the like
    const before = tokenAccountOf(pre[i] ?? null);
    const after = tokenAccountOf(post[i] ?? null);
    if (before?.owner !== wallet && after?.owner !== wallet) continue;
    const mint = before?.mint ?? after!.mint;
    if (pre[i] === null && after?.owner === wallet) {
      const rent = post[i]!.lamports - (mint === WSOL_MINT ? after.amount : 0n);
      paid += rent;
      if (mint === intent.mint) created += rent;
    }
    if (post[i] === null && before?.owner === wallet) returned += pre[i]!.lamports - (mint === WSOL_MINT ? before.amount : 0n);
    const io = closable(ours, intent.side, address);
    const name = `our token account ${address} (mint ${mint})`;
    if (before?.owner === wallet) {
      if (!after) {
        if (!io) return reject('LIVE_INSPECTION_ACCOUNT', `simulation closes ${name}, which is neither the intended input nor the output`);
      } else if (after.owner !== wallet) {
        return reject('LIVE_INSPECTION_ACCOUNT', `simulation re-assigns ${name} to owner ${after.owner}`);
      } else if (after.delegate !== before.delegate && after.delegate !== null) {
        return reject('LIVE_INSPECTION_ACCOUNT', `simulation delegates ${name} to ${after.delegate}`);
      } else if (after.closeAuthority !== before.closeAuthority && after.closeAuthority !== null && after.closeAuthority !== wallet) {
        return reject('LIVE_INSPECTION_ACCOUNT', `simulation gives the close authority of ${name} to ${after.closeAuthority}`);
      }
    }
    const change = (after?.owner === wallet ? after.amount : 0n) - (before?.owner === wallet ? before.amount : 0n);
    if (change < 0n) {
      if (!ours.inputs.has(address))
        return reject('LIVE_INSPECTION_ACCOUNT', `simulation takes ${-change} raw tokens from ${name}, which is not the intended input`);
      inputTaken -= change;
    }
    if (mint === intent.mint) mintDelta += change;
    if (mint === WSOL_MINT) wsolDelta += change;
  }

  const rent = created < bounds.rentBudget ? created : bounds.rentBudget;
  const rentMoved = { paidLamports: paid, returnedLamports: returned };
  const refund = returned > 0n ? ` (rent ${returned} returned by closing our token account, not counted)` : '';
  // SOL in (+) or out (-) of the wallet and its wrapped SOL, the rent of closed accounts taken out.
  const solIn = solDelta + wsolDelta - returned;
  if (intent.side === 'buy') {
    const maxOut = intent.spendLamports + feeBudget + rent;
    const solOut = -solIn;
    if (solOut > maxOut) {
      return reject(
        'LIVE_INSPECTION_OUTFLOW',
        `simulation takes ${solOut} lamports from our wallet${refund}; the intent allows at most ${maxOut} (amount ${intent.spendLamports} + fees ${feeBudget} + rent ${rent} of our new ${intent.mint} account)`,
      );
    }
    if (mintDelta < minOut) {
      return reject(
        'LIVE_INSPECTION_OUTPUT',
        `simulation delivers ${mintDelta} raw ${intent.mint} to token accounts our wallet owns; the intent accepts at least ${minOut}`,
      );
    }
    return { ok: true, blockhash, priorityFeeLamports: priorityFee, simulatedOut: mintDelta, rent: rentMoved };
  }
  if (inputTaken > intent.sellRaw || -mintDelta > intent.sellRaw) {
    return reject(
      'LIVE_INSPECTION_OUTFLOW',
      `simulation takes ${inputTaken > -mintDelta ? inputTaken : -mintDelta} raw tokens from our account; the intent sells ${intent.sellRaw}`,
    );
  }
  if (-solIn > feeBudget + rent) {
    return reject('LIVE_INSPECTION_OUTFLOW', `simulation takes ${-solIn} lamports from our wallet on a sell${refund}; fees allow at most ${feeBudget + rent}`);
  }
  // Proceeds net of this transaction's own fee (base fee per signature + its priority fee) and of rent.
  const proceeds = solIn + fees.paid + rent;
  if (proceeds < minOut) {
    return reject(
      'LIVE_INSPECTION_OUTPUT',
      `simulation pays ${proceeds} lamports to our wallet for ${intent.sellRaw} raw ${intent.mint} (balance change ${solDelta + wsolDelta} + fee ${fees.paid}${returned > 0n ? ` - rent ${returned} returned by closing our token account` : ''}${rent > 0n ? ` + rent ${rent} paid` : ''}); the intent accepts at least ${minOut}`,
    );
  }
  return { ok: true, blockhash, priorityFeeLamports: priorityFee, simulatedOut: proceeds, rent: rentMoved };
}

/** The SPL token account fields inspection compares. */
export interface TokenAccountView {
  readonly mint: string;
  readonly owner: string;
  readonly amount: bigint;
  readonly delegate: string | null;
  readonly closeAuthority: string | null;
}

/** The data of an SPL Token or Token-2022 token account (not a mint); undefined otherwise. */
function tokenAccountData(account: RpcAccount | null): Buffer | undefined {
  if (!account || (account.owner !== TOKEN_PROGRAM && account.owner !== TOKEN_2022_PROGRAM)) return undefined;
  const data = Buffer.from(account.data[0], 'base64');
  if (data.length < 165) return undefined;
  if (data.length > 165 && (account.owner !== TOKEN_2022_PROGRAM || data[165] !== 2)) return undefined; // a Token-2022 mint with extensions
  return data;
}

/** True when `account` is a token account whose owner is `wallet` (base58), read without decoding the rest. */
function ownedTokenAccount(account: RpcAccount | null, wallet: string): boolean {
  const data = tokenAccountData(account);
  return data !== undefined && keyText(data.subarray(32, 64)) === wallet;
}

/** Decodes an SPL Token or Token-2022 token account (not a mint); undefined otherwise. */
export function tokenAccountOf(account: RpcAccount | null): TokenAccountView | undefined {
  const data = tokenAccountData(account);
  if (!data) return undefined;
  const key = (at: number): string => keyText(data.subarray(at, at + 32));
  return {
    mint: key(0),
    owner: key(32),
    amount: data.readBigUInt64LE(64),
    delegate: data.readUInt32LE(72) === 1 ? key(76) : null,
    closeAuthority: data.readUInt32LE(129) === 1 ? key(133) : null,
  };
}
