/**
 * Validation and exact serialisation of a swap request. `amount` and `priorityFee` leave the
 * process as JSON number literals written from the decimal strings, never through a float.
 */
import { ChainpilotError, decimal } from '../../core/index.js';

/** The wrapped-SOL mint, used for SOL as `from` or `to`. */
export const WRAPPED_SOL_MINT = 'So11111111111111111111111111111111111111112';

export interface SwapRequest {
  /** The wallet that pays and signs (fee payer). */
  readonly wallet: string;
  /** Input mint (wrapped SOL for SOL). */
  readonly from: string;
  /** Output mint. */
  readonly to: string;
  /** Amount of `from` in decimal units of `from` ("0.5" SOL, "1200.25" tokens). */
  readonly amount: string;
  /** Maximum slippage in percent (1 = 1 %), greater than 0 and at most 100. */
  readonly slippagePct: number;
  /** Priority fee in SOL as a decimal string ("0.0001"). */
  readonly priorityFeeSol: string;
}

const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

function bad(field: string, fix: string): ChainpilotError {
  return new ChainpilotError('SWAP_INVALID_REQUEST', `swap request ${field}: ${fix}`, { retry: 'not_retryable', context: { field } });
}

/** Checks every field and returns the exact JSON body text to send. */
export function serializeSwapRequest(req: SwapRequest): string {
  for (const field of ['wallet', 'from', 'to'] as const) {
    if (typeof req[field] !== 'string' || !BASE58_ADDRESS.test(req[field])) throw bad(field, 'must be a base58 address of 32 to 44 characters');
  }
  if (req.from === req.to) throw bad('to', 'must differ from `from`');
  const amount = exactLiteral(req.amount, 'amount', false);
  const priorityFee = exactLiteral(req.priorityFeeSol, 'priorityFeeSol', true);
  if (typeof req.slippagePct !== 'number' || !Number.isFinite(req.slippagePct) || req.slippagePct <= 0 || req.slippagePct > 100) {
    throw bad('slippagePct', `must be a number of percent in (0, 100], got ${String(req.slippagePct)}`);
  }
  return (
    `{"wallet":${JSON.stringify(req.wallet)},"from":${JSON.stringify(req.from)},"to":${JSON.stringify(req.to)},` +
    `"amount":${amount},"slippage":${JSON.stringify(req.slippagePct)},"priorityFee":${priorityFee}}`
  );
}

/** A plain decimal literal ("0.000001", never "1e-6") of a non-negative (or positive) decimal string. */
function exactLiteral(value: string, field: string, allowZero: boolean): string {
  if (typeof value !== 'string' || !/^\d+(\.\d+)?$/.test(value.trim())) {
    throw bad(field, `must be a plain decimal string such as "0.5", got ${JSON.stringify(value)}`);
  }
  const d = decimal(value.trim(), field);
  if (d.isNegative() || (!allowZero && d.isZero())) throw bad(field, allowZero ? 'must be >= 0' : 'must be > 0');
  return d.toFixed();
}
