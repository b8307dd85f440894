/**
 * Static mode's proof that a buy's output stays ours once the transaction ends, read from the
 * intent's mint account (one `getMultipleAccounts`, cached per mint once it passed). A classic SPL
 * mint passes when no freeze authority is set. A Token-2022 mint passes when, besides that, every
 * extension it carries is one this check knows cannot take, freeze or lock tokens in our account:
 * transfer fee config (the output proof counts only `TransferCheckedWithFee`, net of the fee it
 * states), mint close authority, interest-bearing and scaled UI amount (display only), metadata
 * and group pointers and their data. It is refused for a permanent delegate (can move or burn our
 * tokens), a transfer hook (runs a program on every transfer of ours, may refuse our sale),
 * confidential transfers (balances we cannot read), default account state (new accounts start
 * frozen or can be made to), non-transferable or pausable mints, and any extension it does not know.
 *
 * A mint that passed stays passed: a freeze authority once unset can never be set again, and
 * Token-2022 extensions are fixed when the mint is initialised (an unset permanent delegate or
 * transfer hook cannot be set later). So only passes are cached.
 */
import { keyText } from '../../client/key-text.js';
import { BoundedMap } from '../../core/bounded-map.js';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './instruction-checks.js';
import type { RpcAccount } from './ports.js';

/** Bytes of a classic mint; Token-2022 extensions start after the account-type byte at 165. */
const MINT_SIZE = 82;
const ACCOUNT_TYPE_AT = 165;
const ACCOUNT_TYPE_MINT = 1;

/** Token-2022 extension types a held account's tokens are safe under (spl-token-2022 `ExtensionType`). */
const SAFE_EXTENSIONS = new Map<number, string>([
  [1, 'TransferFeeConfig'],
  [3, 'MintCloseAuthority'],
  [10, 'InterestBearingConfig'],
  [18, 'MetadataPointer'],
  [19, 'TokenMetadata'],
  [20, 'GroupPointer'],
  [21, 'TokenGroup'],
  [22, 'GroupMemberPointer'],
  [23, 'TokenGroupMember'],
  [25, 'ScaledUiAmount'],
]);
/** Extensions refused, with what they can do to tokens we hold. */
const REFUSED_EXTENSIONS = new Map<number, string>([
  [4, 'ConfidentialTransferMint (balances move in encrypted amounts we cannot read)'],
  [6, 'DefaultAccountState (our account can start frozen)'],
  [9, 'NonTransferable (we could never sell)'],
  [12, 'PermanentDelegate (its delegate can move or burn tokens out of our account)'],
  [14, 'TransferHook (a program runs on every transfer and can refuse ours)'],
  [16, 'ConfidentialTransferFeeConfig (fees withheld in encrypted amounts)'],
  [24, 'ConfidentialMintBurn (supply changes we cannot read)'],
  [26, 'Pausable (its authority can stop every transfer)'],
]);

export type MintVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const allZero = (d: Buffer, from: number, to: number): boolean => d.subarray(from, to).every((b) => b === 0);

/** Judges the mint account `account` of `mint` (base58): can tokens of it that reach our account be taken back or locked? */
export function judgeMint(mint: string, account: RpcAccount | null): MintVerdict {
  const no = (why: string): MintVerdict => ({ ok: false, reason: `mint ${mint} ${why}` });
  if (!account) return no('does not exist');
  if (account.owner !== TOKEN_PROGRAM && account.owner !== TOKEN_2022_PROGRAM) return no(`is owned by ${account.owner}, not a token program`);
  const d = Buffer.from(account.data[0], 'base64');
  if (d.length < MINT_SIZE || d[45] !== 1) return no('is not an initialised mint');
  if (d.readUInt32LE(46) === 1) return no(`has a freeze authority (${keyText(d.subarray(50, 82))}): our account could be frozen`);
  if (d.length === MINT_SIZE) return { ok: true };
  if (account.owner !== TOKEN_2022_PROGRAM || d.length < ACCOUNT_TYPE_AT + 1 || d[ACCOUNT_TYPE_AT] !== ACCOUNT_TYPE_MINT)
    return no(`has ${d.length} bytes, not a mint layout`);
  for (let at = ACCOUNT_TYPE_AT + 1; at + 4 <= d.length;) {
    const type = d.readUInt16LE(at);
    const length = d.readUInt16LE(at + 2);
    const value = at + 4;
    if (type === 0) break; // uninitialised space after the last extension
    if (value + length > d.length) return no(`has a truncated extension ${type}`);
    at = value + length;
    if (SAFE_EXTENSIONS.has(type)) continue;
    // An unset permanent delegate (zero key) or an unset hook (no authority, no program) can never be set.
    if (type === 12 && allZero(d, value, value + length)) continue;
    if (type === 14 && allZero(d, value, value + length)) continue;
    const refused = REFUSED_EXTENSIONS.get(type);
    return no(refused ? `has the Token-2022 extension ${refused}` : `has Token-2022 extension type ${type}, which static inspection does not know`);
  }
  return { ok: true };
}

const MAX_CACHED = 4_096;
const passed = new BoundedMap<string, true>(MAX_CACHED);

/** {@link judgeMint} of `mint`, read through `read` unless it passed before. */
export async function checkMint(mint: string, read: (mint: string) => Promise<RpcAccount | null>): Promise<MintVerdict> {
  if (passed.get(mint)) return { ok: true };
  const verdict = judgeMint(mint, await read(mint));
  if (verdict.ok) passed.set(mint, true);
  return verdict;
}
