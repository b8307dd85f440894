/**
 * JSON encoding of intents and fills for durable storage: bigints travel as integer strings and
 * are checked on the way back, so a corrupt row fails loudly instead of trading on garbage.
 */
import { z } from 'zod';
import { ChainpilotError } from '../../core/errors.js';
import { lamports, rawAmount, type Bps, type UnixMs } from '../../core/units.js';
import { amountInOf, type Fill, type OrderIntent } from '../../engine/orders/execution-port.js';

const bigintString = z
  .string()
  .regex(/^\d+$/)
  .transform((s) => BigInt(s));

const intentSchema = z.object({
  id: z.string().min(1),
  strategyId: z.string(),
  side: z.enum(['buy', 'sell']),
  mint: z.string().min(1),
  decimals: z.number().int().min(0).max(18),
  amountIn: bigintString,
  slippageBps: z.number().int().min(0).max(10_000),
  priorityFeeLamports: bigintString,
  referencePrice: z.string().optional(),
  createdAt: z.number().int().min(0),
  reason: z.string(),
});

const fillSchema = z.object({
  intentId: z.string(),
  side: z.enum(['buy', 'sell']),
  mint: z.string(),
  decimals: z.number().int(),
  solAmount: bigintString,
  tokenAmount: bigintString,
  feeLamports: bigintString,
  price: z.string(),
  filledAt: z.number().int(),
  signature: z.string().optional(),
  pool: z.string().optional(),
  rentLamports: bigintString.optional(),
  rentReturnedLamports: bigintString.optional(),
});

/**
 * Encodes an intent as JSON text. The stored format predates the buy/sell union and stays as it
 * was, so journals and queued jobs written by earlier versions still open: one `amountIn` integer
 * string, lamports for a buy and raw token units for a sell (the `side` says which).
 */
export function encodeIntent(i: OrderIntent): string {
  return JSON.stringify({
    id: i.id,
    strategyId: i.strategyId,
    side: i.side,
    mint: i.mint,
    decimals: i.decimals,
    amountIn: amountInOf(i).toString(),
    slippageBps: i.slippageBps,
    priorityFeeLamports: i.priorityFeeLamports.toString(),
    referencePrice: i.referencePrice,
    createdAt: i.createdAt,
    reason: i.reason,
  });
}

/** Decodes an intent written by {@link encodeIntent}; throws JOURNAL_CORRUPT on a bad row. */
export function decodeIntent(text: string): OrderIntent {
  const { amountIn, side, ...p } = parse(intentSchema, text, 'intent');
  const common = {
    ...p,
    referencePrice: p.referencePrice,
    slippageBps: p.slippageBps as Bps,
    priorityFeeLamports: lamports(p.priorityFeeLamports),
    createdAt: p.createdAt as UnixMs,
  };
  return side === 'buy' ? { ...common, side, spendLamports: lamports(amountIn) } : { ...common, side, sellRaw: rawAmount(amountIn) };
}

/**
 * `i` exactly as {@link decodeIntent} returns it from {@link encodeIntent}'s text: the stored
 * fields only. Lets a journal hand back an intent it has just written without decoding it.
 */
export function storedIntent(i: OrderIntent): OrderIntent {
  const common = {
    id: i.id,
    strategyId: i.strategyId,
    mint: i.mint,
    decimals: i.decimals,
    slippageBps: i.slippageBps,
    priorityFeeLamports: i.priorityFeeLamports,
    referencePrice: i.referencePrice,
    createdAt: i.createdAt,
    reason: i.reason,
  };
  return i.side === 'buy' ? { ...common, side: 'buy', spendLamports: i.spendLamports } : { ...common, side: 'sell', sellRaw: i.sellRaw };
}

/** Encodes a fill as JSON text. */
export function encodeFill(f: Fill): string {
  return JSON.stringify({
    ...f,
    solAmount: f.solAmount.toString(),
    tokenAmount: f.tokenAmount.toString(),
    feeLamports: f.feeLamports.toString(),
    ...(f.rentLamports === undefined ? {} : { rentLamports: f.rentLamports.toString() }),
    ...(f.rentReturnedLamports === undefined ? {} : { rentReturnedLamports: f.rentReturnedLamports.toString() }),
  });
}

/** Decodes a fill written by {@link encodeFill}; throws JOURNAL_CORRUPT on a bad row. */
export function decodeFill(text: string): Fill {
  const p = parse(fillSchema, text, 'fill');
  const { signature, pool, rentLamports, rentReturnedLamports, ...rest } = p;
  return {
    ...rest,
    solAmount: lamports(p.solAmount),
    tokenAmount: rawAmount(p.tokenAmount),
    feeLamports: lamports(p.feeLamports),
    filledAt: p.filledAt as UnixMs,
    ...(signature === undefined ? {} : { signature }),
    ...(pool === undefined ? {} : { pool }),
    ...(rentLamports === undefined ? {} : { rentLamports: lamports(rentLamports) }),
    ...(rentReturnedLamports === undefined ? {} : { rentReturnedLamports: lamports(rentReturnedLamports) }),
  };
}

function parse<T>(schema: z.ZodType<T>, text: string, what: string): T {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ChainpilotError('JOURNAL_CORRUPT', `journal ${what} row is not JSON; restore the journal file from a backup`, {
      retry: 'fatal',
      cause: e,
    });
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new ChainpilotError('JOURNAL_CORRUPT', `journal ${what} row field ${issue?.path.join('.') ?? '?'} is invalid: ${issue?.message ?? ''}`, {
      retry: 'fatal',
      context: { what },
    });
  }
  return r.data;
}
