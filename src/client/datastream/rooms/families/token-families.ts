/** Token lifecycle rooms: `latest`, `graduating`, `graduated` and `{market}:curve:{pct}`. */
import { fpAnchor, fpLocal } from '../../dedup/fingerprint.js';
import { isNum, isObj, isStr, optNum, optNumOrNull, optStr, optStrOrNull, type Obj } from '../guards.js';
import type { TokenGraduated, TokenGraduating, TokenLaunch } from '../payloads.js';
import { roomFamily, wholeRoom } from '../room-family.js';

/** Checks `{token: {mint, ...}, pools?: [...]}`: only the mint is required. */
function checkTokenPools(d: unknown): string | undefined {
  if (!isObj(d)) return 'data must be an object';
  const token = d.token;
  if (!isObj(token)) return 'token must be an object';
  return checkToken(token, 'token') ?? checkPools(d.pools) ?? (optNum(d.riskScore) ? undefined : 'riskScore must be a number');
}

function checkToken(t: Obj, at: string): string | undefined {
  if (!isStr(t.mint) || t.mint.length === 0) return `${at}.mint must be a non-empty string`;
  if (!optStr(t.name)) return `${at}.name must be a string`;
  if (!optStr(t.symbol)) return `${at}.symbol must be a string`;
  if (t.decimals !== undefined && !(Number.isInteger(t.decimals) && (t.decimals as number) >= 0 && (t.decimals as number) <= 18))
    return `${at}.decimals must be an integer 0..18`;
  return undefined;
}

function checkPools(pools: unknown): string | undefined {
  if (pools === undefined) return undefined;
  if (!Array.isArray(pools)) return 'pools must be an array';
  for (let i = 0; i < pools.length; i++) {
    const p: unknown = pools[i];
    if (!isObj(p)) return `pools[${i}] is not an object`;
    if (!optStr(p.market)) return `pools[${i}].market must be a string`;
    if (!optStr(p.poolId)) return `pools[${i}].poolId must be a string`;
  }
  return undefined;
}

const firstPool = (d: TokenLaunch): string => d.pools?.[0]?.poolId ?? '';

/** `latest`: new tokens and pools. One event per mint and primary pool. */
export const launchFamily = roomFamily({
  name: 'launch',
  pattern: 'latest',
  example: 'latest',
  match: (p) => p.length === 1 && p[0] === 'latest',
  heads: ['latest'],
  delivery: 'queued',
  rows: false,
  provisional: false,
  parse: (d) => checkTokenPools(d) ?? (d as TokenLaunch),
  identity: (d) => {
    // the mint anchors the launch; the primary pool only tells apart the pools of one mint
    fpAnchor(d.token.mint);
    fpLocal(firstPool(d));
  },
  scope: () => 'latest',
});

/** `graduating` and `graduating:{market}:{sol}`: tokens approaching curve completion (progress updates, not deduplicated). */
export const graduatingFamily = roomFamily({
  name: 'graduating',
  pattern: 'graduating[:{market}:{sol}]',
  example: 'graduating:venue_a:50',
  match: (p) => p[0] === 'graduating' && (p.length === 1 || p.length === 3),
  heads: ['graduating'],
  delivery: 'queued',
  rows: false,
  provisional: false,
  parse: (d) => checkTokenPools(d) ?? (optNum((d as Obj).curvePercentage) ? (d as TokenGraduating) : 'curvePercentage must be a number'),
  scope: wholeRoom,
});

/** `graduated`: just-graduated tokens; `graduationTx` and `graduationTime` are optional. */
export const graduatedFamily = roomFamily({
  name: 'graduated',
  pattern: 'graduated',
  example: 'graduated',
  match: (p) => p.length === 1 && p[0] === 'graduated',
  heads: ['graduated'],
  delivery: 'queued',
  rows: false,
  provisional: false,
  parse: (d) => {
    const bad = checkTokenPools(d);
    if (bad !== undefined) return bad;
    const o = d as Obj;
    if (!optStrOrNull(o.graduationTx)) return 'graduationTx must be a string or null';
    if (!optNumOrNull(o.graduationTime)) return 'graduationTime must be Unix ms or null';
    return d as TokenGraduated;
  },
  identity: (d) => fpAnchor(d.token.mint),
  scope: () => 'graduated',
});

/** `{market}:curve:{pct}`: a token reached that percent of its curve. */
export const curveFamily = roomFamily({
  name: 'curve',
  pattern: '{market}:curve:{pct}',
  example: 'venue_a:curve:50',
  match: (p) => p.length === 3 && p[1] === 'curve' && isNum(Number(p[2])) && p[2] !== '',
  delivery: 'queued',
  rows: false,
  provisional: false,
  parse: (d) => {
    if (!isObj(d)) return 'data must be an object';
    if (d.token !== undefined) {
      if (!isObj(d.token)) return 'token must be an object';
      const bad = checkToken(d.token, 'token');
      if (bad !== undefined) return bad;
    } else if (!isStr(d.mint) || d.mint.length === 0) return 'token.mint (or mint) must be a non-empty string';
    if (!optNum(d.curvePercentage)) return 'curvePercentage must be a number';
    return d;
  },
  identity: (d) => fpAnchor(d.token?.mint ?? d.mint ?? ''),
  scope: wholeRoom,
});
