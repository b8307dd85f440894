/**
 * Wire schemas of JSON-RPC results (zod). Integers that carry lamports arrive as numbers, or as
 * strings after lossless parsing (beyond 2^53); both become exact bigints here. Undocumented fields
 * pass through.
 */
import { z } from 'zod';

/** An integer that may be a JSON number or a digit string: parsed to bigint. */
export const bigIntWire = z.union([z.number().int(), z.string().regex(/^-?\d+$/)]).transform((v) => BigInt(v));
/** A u64 counter that is not money (rent epoch): parsed to number. */
const looseNumber = z.union([z.number(), z.string().regex(/^\d+$/)]).transform((v) => Number(v));

export const commitmentSchema = z.enum(['processed', 'confirmed', 'finalized']);
export const contextSchema = z.looseObject({ slot: z.number().int() });

export const rpcAccountSchema = z.looseObject({
  lamports: bigIntWire,
  owner: z.string(),
  data: z.tuple([z.string(), z.literal('base64')]),
  executable: z.boolean(),
  rentEpoch: looseNumber.optional(),
});

export const signatureStatusSchema = z.looseObject({
  slot: z.number().int(),
  confirmations: z.number().int().nullable(),
  err: z.unknown().nullable().default(null),
  confirmationStatus: commitmentSchema.nullable().default(null),
});

export const tokenBalanceSchema = z.looseObject({
  accountIndex: z.number().int(),
  mint: z.string(),
  owner: z.string().optional(),
  uiTokenAmount: z.looseObject({ amount: z.string().regex(/^\d+$/), decimals: z.number().int() }),
});

export const transactionMetaSchema = z.looseObject({
  fee: bigIntWire,
  err: z.unknown().nullable().default(null),
  preBalances: z.array(bigIntWire),
  postBalances: z.array(bigIntWire),
  preTokenBalances: z
    .array(tokenBalanceSchema)
    .nullish()
    .transform((v) => v ?? []),
  postTokenBalances: z
    .array(tokenBalanceSchema)
    .nullish()
    .transform((v) => v ?? []),
});

export const rpcTransactionSchema = z.looseObject({
  slot: z.number().int(),
  blockTime: z
    .number()
    .int()
    .nullish()
    .transform((v) => v ?? null),
  transaction: z.tuple([z.string(), z.literal('base64')]),
  meta: transactionMetaSchema.nullable(),
});

export const keyedAccountSchema = z.looseObject({ pubkey: z.string(), account: rpcAccountSchema });
