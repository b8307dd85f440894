/** SOL amounts in strategy parameters: exact decimal strings to lamports. */
import { z } from 'zod';
import { parseSolToLamports } from '../core/decimal.js';
import type { Lamports } from '../core/units.js';

/** More SOL than exists: the same bound as the deployment's SOL keys (src/config/limits.ts). */
const MAX_LAMPORTS = 1_000_000_000n * 1_000_000_000n;

/** A zod schema for a positive SOL amount ("0.1") up to 1e9 SOL, giving `Lamports`. */
export const solParam = z.union([z.string(), z.number()]).transform((v, ctx): Lamports => {
  const l = parseSolToLamports(v);
  if (l !== undefined && l > 0n && l <= MAX_LAMPORTS) return l;
  ctx.addIssue({ code: 'custom', message: `expected a positive SOL amount up to 1000000000 with at most 9 decimals, such as "0.1"; got ${JSON.stringify(v)}` });
  return z.NEVER;
});
