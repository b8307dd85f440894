/** Row rooms: `liquidity:*` (events of the spec's shape) and `transaction:*` (swaps). */
import { fpAnchor, fpInt, fpLocal, fpNum, fpStr } from '../../dedup/fingerprint.js';
import { checkLiquidityEvent, isObj, isStr, optNum, optStr, type Obj } from '../guards.js';
import { QUOTE_MINTS, type LiquidityEvent, type SwapEvent, type SwapSide } from '../payloads.js';
import { roomFamily, type BackfillScope, type RoomName } from '../room-family.js';

/** A checked swap: the traded token (the non-quote side of a pair), its side and amounts. */
export interface SwapTrade {
  /** The traded token's mint. */
  readonly mint: string;
  readonly side: 'buy' | 'sell';
  readonly tx: string | undefined;
  readonly wallet: string | undefined;
  /** Amount of the traded token as sent (number or exact decimal string). */
  readonly amount: number | string | undefined;
  readonly priceUsd: number | undefined;
  readonly volumeUsd: number | undefined;
  /** SOL side of the swap in SOL as sent (`solVolume`, else the SOL side of the `{from, to}` pair), when known. */
  readonly solVolume: number | string | undefined;
  /** Unix ms, when sent. */
  readonly time: number | undefined;
  /** The row as sent. */
  readonly raw: SwapEvent;
}

function scope(token: string, pool: string | undefined, wallet: string | undefined, events: 'all' | 'liquidity', swapsOnly: boolean): BackfillScope {
  return { token, ...(pool === undefined ? {} : { pool }), ...(wallet === undefined ? {} : { wallet }), events, swapsOnly };
}

/** `liquidity:*`: arrays of liquidity events (provisional live). */
export const liquidityFamily = roomFamily({
  name: 'liquidity',
  pattern: 'liquidity:{mint}[:{pool}[:{wallet}]] | liquidity:pool:{pool} | liquidity:wallet:{wallet} [+ :enriched]',
  example: 'liquidity:MintA',
  match: (p) => p[0] === 'liquidity' && p.length >= 2 && p.length <= 4,
  heads: ['liquidity'],
  delivery: 'queued',
  rows: true,
  provisional: true,
  parse: (row) => checkLiquidityEvent(row) ?? (row as LiquidityEvent),
  identity: (e) => {
    // the signature anchors the event; pool, wallet and mints only tell apart the events of one tx
    // (fingerprint.ts: ANCHOR_CHARS, LOCAL_CHARS); the pool implies the program, so programId is left out
    fpAnchor(e.tx);
    fpInt(e.type === 'add_liquidity' ? 1 : 2); // the guard admits only these two
    fpLocal(e.pool);
    fpLocal(e.wallet);
    fpStr(e.instruction);
    const tokens = e.tokens;
    for (let i = 0; i < tokens.length; i++) {
      fpLocal(tokens[i]!.address);
      fpStr(tokens[i]!.amountRaw);
    }
  },
  // one logical liquidity event reaches every matching room: one scope for them all
  scope: () => 'liquidity',
  backfill: (r) => {
    const p = r.parts;
    // pool and wallet rooms have no token: REST history cannot scope them
    if (p[1] === 'pool' || p[1] === 'wallet' || p[1] === undefined) return undefined;
    return scope(p[1], p[2], p[3], 'liquidity', false);
  },
});

function checkSide(s: unknown, at: string): string | undefined {
  if (!isObj(s)) return `${at} must be an object`;
  if (!isStr(s.address)) return `${at}.address must be a string`;
  if (s.amount !== undefined && typeof s.amount !== 'number' && typeof s.amount !== 'string') return `${at}.amount must be a number or decimal string`;
  if (!optNum(s.decimals)) return `${at}.decimals must be a number`;
  return undefined;
}

/**
 * Parses one swap row. The token is a mint string, a `{from, to}` pair in `token` (the service's
 * documented form) or at the top level (wallet rooms); the traded token is the pair's non-quote
 * side (or the room's token when it is one of the two). The side is `type` when it is `buy` or
 * `sell`, else inferred: spending the quote mint is a buy.
 */
export function parseSwap(row: unknown, r: RoomName): SwapTrade | string {
  if (!isObj(row)) return 'event is not an object';
  const e: Obj = row;
  if (!optStr(e.tx)) return 'tx must be a string';
  if (!optStr(e.wallet)) return 'wallet must be a string';
  if (!optNum(e.priceUsd)) return 'priceUsd must be a number';
  if (!optNum(e.volume)) return 'volume must be a number';
  if (!optNum(e.solVolume)) return 'solVolume must be a number (SOL)';
  if (!optNum(e.time)) return 'time must be Unix ms';
  if (e.amount !== undefined && typeof e.amount !== 'number' && typeof e.amount !== 'string') return 'amount must be a number or decimal string';
  if (e.identity !== undefined && e.identity !== null && !isObj(e.identity)) return 'identity must be an object or null';
  const roomToken = r.parts[1] !== 'wallet' ? r.parts[1] : undefined;
  let mint: string | undefined;
  let from: SwapSide | undefined;
  let to: SwapSide | undefined;
  const token = e.token;
  if (isStr(token)) mint = token;
  else if (isObj(token) && (token.from !== undefined || token.to !== undefined)) {
    const bad = checkSide(token.from, 'token.from') ?? checkSide(token.to, 'token.to');
    if (bad !== undefined) return bad;
    from = token.from as SwapSide;
    to = token.to as SwapSide;
  } else if (token !== undefined && !isObj(token)) return 'token must be a mint string or a {from, to} pair';
  else if (e.from !== undefined || e.to !== undefined) {
    const bad = checkSide(e.from, 'from') ?? checkSide(e.to, 'to');
    if (bad !== undefined) return bad;
    from = e.from as SwapSide;
    to = e.to as SwapSide;
  } else if (isStr(e.mint)) mint = e.mint;
  let traded: SwapSide | undefined;
  if (from !== undefined && to !== undefined) {
    traded = roomToken === from.address ? from : roomToken === to.address ? to : QUOTE_MINTS.has(to.address) ? from : to;
    mint = traded.address;
  }
  mint ??= roomToken;
  if (mint === undefined || mint.length === 0) return 'no traded token: send token (mint or {from, to}) or use a transaction:{token} room';
  let side: 'buy' | 'sell';
  if (e.type === 'buy' || e.type === 'sell') side = e.type;
  else if (traded !== undefined) side = traded === to ? 'buy' : 'sell';
  else return 'type must be buy or sell';
  return {
    mint,
    side,
    tx: e.tx as string | undefined,
    wallet: e.wallet as string | undefined,
    amount: e.amount ?? traded?.amount,
    priceUsd: e.priceUsd as number | undefined,
    volumeUsd: e.volume as number | undefined,
    solVolume: (e.solVolume as number | undefined) ?? solSideAmount(from, to),
    time: e.time as number | undefined,
    raw: e,
  };
}

/** The SOL side's amount of a `{from, to}` pair (in SOL, as sent), when one side is SOL. */
function solSideAmount(from: SwapSide | undefined, to: SwapSide | undefined): number | string | undefined {
  const sol = from !== undefined && SOL_MINTS.has(from.address) ? from : to !== undefined && SOL_MINTS.has(to.address) ? to : undefined;
  return sol?.amount;
}

/** Wrapped and native SOL: the quote mints whose amount is SOL. */
const SOL_MINTS: ReadonlySet<string> = new Set(['So11111111111111111111111111111111111111112', '11111111111111111111111111111111']);

/** `transaction:*`: swaps, an array or a single swap per message. */
export const transactionFamily = roomFamily({
  name: 'transaction',
  pattern: 'transaction:{token}[:{pool}[:{wallet}]] | transaction:wallet:{wallet} [+ :enriched]',
  example: 'transaction:MintA',
  match: (p) => p[0] === 'transaction' && p.length >= 2 && p.length <= 4,
  heads: ['transaction'],
  delivery: 'queued',
  rows: true,
  provisional: false,
  parse: parseSwap,
  identity: (s) => {
    // signature, side, traded token, amount and wallet: what REST history and every room agree on.
    // The signature anchors the swap and the mint and wallet only tell apart the swaps of one tx;
    // without a signature the time stands in for it and the wallet is read as an anchor.
    fpInt(2);
    if (s.tx !== undefined) fpAnchor(s.tx);
    else fpInt(s.time ?? 0);
    fpInt(s.side === 'buy' ? 1 : 2);
    fpLocal(s.mint);
    // a number on the stream and a decimal string in REST are one amount: mixed by value, never formatted
    if (s.amount === undefined) fpInt(0);
    else fpNum(typeof s.amount === 'number' ? s.amount : Number(s.amount));
    if (s.tx !== undefined) fpLocal(s.wallet ?? '');
    else fpAnchor(s.wallet ?? '');
  },
  scope: () => 'transaction',
  backfill: (r) => {
    const p = r.parts;
    // `transaction:wallet:{w}` has no token; REST has no wallet-only trade history route in the spec
    if (p[1] === 'wallet' || p[1] === undefined) return undefined;
    return scope(p[1], p[2], p[3], 'all', true);
  },
});
