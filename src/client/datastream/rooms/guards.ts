/**
 * Fast hand-written runtime checks shared by the room families' guards (zod would be the slow part
 * of the hot path: see bench/datastream-ingest.bench.ts). A check returns the first problem as a
 * short string naming the field, or undefined when the value is valid. Extra fields are never
 * stripped.
 */
export type Obj = Record<string, unknown>;

/** `^-?\d+$` without a regex (hot path). */
export function isIntString(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  const n = v.length;
  let i = n > 0 && v.charCodeAt(0) === 45 ? 1 : 0;
  if (i === n) return false;
  for (; i < n; i++) {
    const c = v.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** `^-?\d+(\.\d+)?$` without a regex (hot path). */
export function isDecimalString(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  const n = v.length;
  let i = n > 0 && v.charCodeAt(0) === 45 ? 1 : 0;
  let digits = 0;
  let dot = -1;
  for (; i < n; i++) {
    const c = v.charCodeAt(i);
    if (c === 46 && dot < 0 && digits > 0) {
      dot = i;
      digits = 0;
    } else if (c < 48 || c > 57) return false;
    else digits++;
  }
  return digits > 0;
}

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
export const isStr = (v: unknown): v is string => typeof v === 'string';
export const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
export const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/** Checks one liquidity event (spec "Liquidity event"). */
export function checkLiquidityEvent(e: unknown): string | undefined {
  if (!isObj(e)) return 'event is not an object';
  if (!isStr(e.tx)) return 'tx must be a string';
  if (e.type !== 'add_liquidity' && e.type !== 'remove_liquidity') return 'type must be add_liquidity or remove_liquidity';
  if (!isStr(e.program)) return 'program must be a string';
  if (!isStr(e.programId)) return 'programId must be a string';
  if (!isStr(e.instruction)) return 'instruction must be a string';
  if (!isStr(e.pool)) return 'pool must be a string';
  if (!isStr(e.wallet)) return 'wallet must be a string';
  if (!isInt(e.time)) return 'time must be integer Unix ms';
  if (!isInt(e.slot)) return 'slot must be an integer';
  if (e.amountBasis !== 'transfer' && e.amountBasis !== 'principal') return 'amountBasis must be transfer or principal';
  const tokens = e.tokens;
  if (!Array.isArray(tokens)) return 'tokens must be an array';
  for (let i = 0; i < tokens.length; i++) {
    const t: unknown = tokens[i];
    if (!isObj(t)) return `tokens[${i}] is not an object`;
    if (!isStr(t.address)) return `tokens[${i}].address must be a string`;
    if (!isDecimalString(t.amount)) return `tokens[${i}].amount must be a decimal string`;
    if (!isIntString(t.amountRaw)) return `tokens[${i}].amountRaw must be an integer string`;
    if (!isInt(t.decimals)) return `tokens[${i}].decimals must be an integer`;
    if (t.feeAmountRaw !== undefined && !isIntString(t.feeAmountRaw)) return `tokens[${i}].feeAmountRaw must be an integer string`;
    if (t.transferredAmountRaw !== undefined && !isIntString(t.transferredAmountRaw)) {
      return `tokens[${i}].transferredAmountRaw must be an integer string`;
    }
  }
  if (e.identity !== undefined && e.identity !== null && !isObj(e.identity)) return 'identity must be an object or null';
  if (e.identityStatus !== undefined && !isStr(e.identityStatus)) return 'identityStatus must be a string';
  return undefined;
}

/** Optional field check: undefined, or of the right kind. */
export const optStr = (v: unknown): boolean => v === undefined || typeof v === 'string';
export const optNum = (v: unknown): boolean => v === undefined || isNum(v);
export const optNumOrNull = (v: unknown): boolean => v === undefined || v === null || isNum(v);
export const optStrOrNull = (v: unknown): boolean => v === undefined || v === null || typeof v === 'string';
