/** SOL amounts in strategy parameters: exact decimal strings to lamports. */
import { z } from 'zod';
import { toRaw } from '../core/decimal.js';

/** A zod schema for a positive SOL amount ("0.1"), giving lamports. */
export const solParam = z.union([z.string(), z.number()]).transform((v, ctx) => {
  try {
    const l = toRaw(String(v), 9);
    if (l > 0n) return l;
  } catch {
    // reported below
  }
  ctx.addIssue({ code: 'custom', message: `expected a positive SOL amount with at most 9 decimals, such as "0.1"; got ${JSON.stringify(v)}` });
  return z.NEVER;
});
