/**
 * Fast hand-written runtime checks of room payloads (zod would be the slow part of the hot path:
 * see bench/datastream-ingest.bench.ts). A check returns the first problem as a short string
 * naming the field, or undefined when the payload is valid. Extra fields are never stripped.
 */
import type { RoomFamily } from './room-spec.js';

type Obj = Record<string, unknown>;

/** `^-?\d+$` without a regex (hot path). */
function isIntString(v: unknown): v is string {
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
function isDecimalString(v: unknown): v is string {
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

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const isStr = (v: unknown): v is string => typeof v === 'string';
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

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

/** Checks one swap row of a transaction room (only the fields the spec names). */
export function checkSwapEvent(e: unknown): string | undefined {
  if (!isObj(e)) return 'event is not an object';
  if (e.tx !== undefined && !isStr(e.tx)) return 'tx must be a string';
  if (e.type !== undefined && !isStr(e.type)) return 'type must be a string';
  if (e.identity !== undefined && e.identity !== null && !isObj(e.identity)) return 'identity must be an object or null';
  return undefined;
}

function checkTokenLaunch(d: Obj): string | undefined {
  const token = d.token;
  if (!isObj(token)) return 'token must be an object';
  if (!isStr(token.mint)) return 'token.mint must be a string';
  if (!isStr(token.name)) return 'token.name must be a string';
  if (!isStr(token.symbol)) return 'token.symbol must be a string';
  const pools = d.pools;
  if (!Array.isArray(pools)) return 'pools must be an array';
  for (let i = 0; i < pools.length; i++) {
    const p: unknown = pools[i];
    if (!isObj(p)) return `pools[${i}] is not an object`;
    if (p.market !== undefined && !isStr(p.market)) return `pools[${i}].market must be a string`;
    if (p.poolId !== undefined && !isStr(p.poolId)) return `pools[${i}].poolId must be a string`;
  }
  return undefined;
}

function checkAggregatedPrice(d: Obj): string | undefined {
  if (!isStr(d.token)) return 'token must be a string';
  if (!isInt(d.timestamp)) return 'timestamp must be integer Unix ms';
  if (!isNum(d.price)) return 'price must be a number';
  if (!isStr(d.pool)) return 'pool must be a string';
  const a = d.aggregated;
  if (!isObj(a)) return 'aggregated must be an object';
  if (!isNum(a.median) || !isNum(a.average) || !isNum(a.min) || !isNum(a.max)) return 'aggregated.median/average/min/max must be numbers';
  if (!isInt(a.poolCount)) return 'aggregated.poolCount must be an integer';
  const top = d.topPools;
  if (!Array.isArray(top)) return 'topPools must be an array';
  for (let i = 0; i < top.length; i++) {
    const p: unknown = top[i];
    if (!isObj(p) || !isStr(p.poolId) || !isNum(p.price) || !isNum(p.liquidity) || !isStr(p.market)) {
      return `topPools[${i}] must have poolId, price, liquidity, market`;
    }
  }
  return undefined;
}

/**
 * Checks a non-array payload of `family`. Array families are checked row by row with
 * `checkRow` so that one bad row does not lose its valid neighbours.
 */
export function checkObjectPayload(family: RoomFamily, data: unknown): string | undefined {
  if (!isObj(data)) return 'data must be an object';
  switch (family) {
    case 'token-launch':
      return checkTokenLaunch(data);
    case 'token-graduated': {
      const base = checkTokenLaunch(data);
      if (base !== undefined) return base;
      if (!isStr(data.graduationTx)) return 'graduationTx must be a string';
      if (!isInt(data.graduationTime)) return 'graduationTime must be integer Unix ms';
      return undefined;
    }
    case 'aggregated-price':
      return checkAggregatedPrice(data);
    case 'price':
      return data.price !== undefined && !isNum(data.price) ? 'price must be a number' : undefined;
    case 'safety':
      return data.totalBundlerPercentage !== undefined && !isNum(data.totalBundlerPercentage) ? 'totalBundlerPercentage must be a number' : undefined;
    default:
      return undefined;
  }
}

/** The row check of an array family. */
export function rowCheck(family: RoomFamily): (row: unknown) => string | undefined {
  return family === 'liquidity' ? checkLiquidityEvent : checkSwapEvent;
}
