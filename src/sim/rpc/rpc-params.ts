/**
 * What every JSON-RPC method handler works with: its parameters, read as a Solana node reads them (a
 * configuration object, base58 addresses, bounded string arrays, a commitment, wire transactions in
 * base58 or base64; a bad one is refused with -32602 naming it, rpc-error.ts), and its scope (the
 * ledger, the answer's context, the account encoder).
 */
import { PublicKey } from '@solana/web3.js';
import { base58Bytes } from '../../core/base58.js';
import type { Ledger, LedgerAccount } from '../ledger/ledger-types.js';
import type { ConfirmationStatus } from '../ledger/tx-record.js';
import { accountEncoding, encodeAccount } from './rpc-accounts.js';
import { invalidParams } from './rpc-error.js';

export type RpcMethod = (params: readonly unknown[]) => unknown;

/** A method's configuration object. */
export type Config = Record<string, unknown>;

/** `{context: {slot, apiVersion}}`, the first member of most answers. */
export interface RpcContext {
  readonly slot: number;
  readonly apiVersion: string;
}

/** What each group of methods serves from. */
export interface RpcScope {
  readonly ledger: Ledger;
  /** The answer's context at the ledger's current slot. */
  readonly context: () => RpcContext;
  /** The account in the configuration's `encoding` (null when it does not exist). */
  readonly encode: (a: LedgerAccount | undefined | null, c: Config) => unknown;
}

/** The scope of the methods serving `ledger`. */
export function rpcScope(ledger: Ledger): RpcScope {
  return {
    ledger,
    context: () => ({ slot: ledger.slot(), apiVersion: '2.2.0' }),
    encode: (a, c) => (a ? encodeAccount(a, accountEncoding(c['encoding']), (m) => ledger.decimalsOf(m)) : null),
  };
}

export const MAX_MULTIPLE_ACCOUNTS = 100;

/** The configuration object at `params[i]` (`{}` when absent). */
export function config(params: readonly unknown[], i: number): Config {
  const c = params[i];
  if (c === undefined || c === null) return {};
  if (typeof c !== 'object' || Array.isArray(c)) invalidParams(`parameter ${i} must be a configuration object`);
  return c as Config;
}

/** A base58 address, normalised. */
export function addressParam(value: unknown, what: string): string {
  if (typeof value !== 'string') invalidParams(`${what} must be a base58 address string`);
  try {
    return new PublicKey(value).toBase58();
  } catch {
    return invalidParams(`${what} ${value} is not a valid base58 address`);
  }
}

/** An array of at most `max` strings. */
export function stringArray(value: unknown, what: string, max: number): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) invalidParams(`${what} must be an array of strings`);
  if (value.length > max) invalidParams(`${what} has ${value.length} entries; at most ${max} are allowed`);
  return value;
}

/** The configuration's commitment, or `fallback`. */
export function commitmentOf(c: Config, fallback: ConfirmationStatus): ConfirmationStatus {
  const v = c['commitment'];
  if (v === undefined) return fallback;
  if (v === 'processed' || v === 'confirmed' || v === 'finalized') return v;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- echoes the caller's bad JSON value
  return invalidParams(`commitment ${String(v)} must be processed, confirmed or finalized`);
}

/** A wire transaction in `encoding` (base58 by default, or base64). */
export function wireBytes(value: unknown, encoding: unknown): Uint8Array {
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
