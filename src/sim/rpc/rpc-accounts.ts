/**
 * Account encodings of the JSON-RPC answers: `base64`, `base58` and `jsonParsed` (SPL token
 * accounts and mints; anything else falls back to base64 as a node does).
 */
import { getBase58Decoder } from '@solana/kit';
import { decodeMint } from '../../client/spl-token.js';
import { fromRaw } from '../../core/index.js';
import type { LedgerAccount } from '../ledger/ledger-types.js';
import { MINT_SIZE, readTokenAccount, TOKEN_PROGRAM_ID } from '../ledger/spl-accounts.js';
import { invalidParams } from './rpc-error.js';

export type AccountEncoding = 'base64' | 'base58' | 'jsonParsed';

const base58 = getBase58Decoder();
const TOKEN_PROGRAM = TOKEN_PROGRAM_ID.toBase58();

/** Reads the `encoding` option (base64 when absent). */
export function accountEncoding(value: unknown): AccountEncoding {
  if (value === undefined) return 'base64';
  if (value === 'base64' || value === 'base58' || value === 'jsonParsed') return value;
  if (value === 'binary') return 'base58';
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- echoes the caller's bad JSON value
  return invalidParams(`encoding ${String(value)} is not supported; use base64, base58 or jsonParsed`);
}

function parsed(a: LedgerAccount, decimalsOf: (mint: string) => number): unknown {
  if (a.owner !== TOKEN_PROGRAM) return undefined;
  const t = readTokenAccount(a.owner, a.data);
  if (t) {
    const decimals = decimalsOf(t.mint);
    const ui = fromRaw(t.amountRaw, decimals);
    return {
      program: 'spl-token',
      parsed: {
        type: 'account',
        info: {
          mint: t.mint,
          owner: t.owner,
          isNative: false,
          state: 'initialized',
          tokenAmount: { amount: t.amountRaw.toString(), decimals, uiAmount: Number(ui), uiAmountString: ui },
        },
      },
      space: a.data.length,
    };
  }
  if (a.data.length === MINT_SIZE) {
    const m = decodeMint(a.data);
    return {
      program: 'spl-token',
      parsed: {
        type: 'mint',
        info: {
          decimals: m.decimals,
          supply: m.supply.toString(),
          isInitialized: m.isInitialized,
          mintAuthority: m.mintAuthority?.toBase58() ?? null,
          freezeAuthority: m.freezeAuthority?.toBase58() ?? null,
        },
      },
      space: a.data.length,
    };
  }
  return undefined;
}

/** The JSON form of an account (lamports as JSON numbers). */
export function encodeAccount(a: LedgerAccount, encoding: AccountEncoding, decimalsOf: (mint: string) => number): unknown {
  const data =
    (encoding === 'jsonParsed' ? parsed(a, decimalsOf) : undefined) ??
    (encoding === 'base58' ? [base58.decode(a.data), 'base58'] : [Buffer.from(a.data).toString('base64'), 'base64']);
  return { lamports: Number(a.lamports), owner: a.owner, data, executable: a.executable, rentEpoch: 0, space: a.data.length };
}
