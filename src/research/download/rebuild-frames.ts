/**
 * Rebuilds the Datastream frames a token's REST history stands for: what `chainpilot download`
 * writes into a recording. Every frame has the shape the Datastream sends (see
 * src/client/datastream/families and the spec's room table), at the history row's own time.
 *
 * From each swap row (in history order):
 * - `transaction:{mint}` and `transaction:{mint}:{pool}`: the swap as the stream sends it (amounts
 *   as numbers, the token as a `{from, to}` pair, SOL/USD from the row's USD and SOL prices);
 * - `price:token:{mint}`: `{token, pool, market, price (USD), price_quote (SOL), liquidity (USD),
 *   time}`; liquidity is derived (below) and left out when it cannot be;
 * - `{market}:curve:{pct}` and `launchpad:curve:{pct}` for every whole percent the curve passes for
 *   the first time (derived, below), `{...token, pools, curvePercentage, threshold, tx, timestamp}`.
 * From each liquidity row: `liquidity:{mint}`, `liquidity:{mint}:{pool}` and `liquidity:pool:{pool}`
 * (the row is the stream's element: `[row]`). From the token's graduation time (the graduated list
 * or search): one `graduated` frame `{token, pools, graduationTx, graduationTime}`. From the swaps'
 * wallets: `holders:{mint}` (wallets with a positive balance, at every swap), `dev_holding:{mint}`,
 * `bundlers:{mint}`, `top10:{mint}`, and `sniper:{mint}` and `insider:{mint}` where the rows'
 * identities name roles (rebuild-safety.ts). The holder chart is not used: the service keeps its
 * 1000 most recent points, so an active token's chart misses the start of a window an hour old.
 *
 * Derivations (exact when the history is complete from the pool's creation; the download pages it
 * from the oldest row):
 * - a pool's SOL reserve is the sum of its rows: buys add their SOL, sells remove it, liquidity
 *   additions and removals move their SOL amount; liquidity (USD) = 2 × SOL reserve × SOL/USD,
 *   as the service values both sides of a pool;
 * - curve progress = tokens sold by the curve pool (buys minus sells, raw) / the curve's initial
 *   real token reserve, 793,100,000 whole tokens on the launchpad curve (`INITIAL_CURVE_TOKENS`,
 *   an assumption about the venue); a milestone fires when progress first reaches a whole percent.
 */
import { fromRaw, toRaw } from '../../core/index.js';
import { safetyFrames, safetyRoomsOf } from './rebuild-safety.js';

/** The SOL mint (wrapped SOL), as the stream names the SOL side of a swap. */
export const SOL_MINT = 'So11111111111111111111111111111111111111112';

/** Whole tokens a launchpad bonding curve sells before it completes (its initial real token reserve). */
export const INITIAL_CURVE_TOKENS = 793_100_000n;

/** Markets with `{market}:curve:{pct}` alerts (the spec's list). */
export const CURVE_MARKETS: ReadonlySet<string> = new Set(['venue_a', 'launchpad', 'venue_c', 'venue_d-curve']);

/** What the download knows of a token besides its history. */
export interface TokenInfo {
  readonly mint: string;
  /** `token` of the token record (`{name, symbol, mint, decimals?, ...}`). */
  readonly token: Readonly<Record<string, unknown>>;
  /** `pools` of the token record (primary first). */
  readonly pools: readonly Readonly<Record<string, unknown>>[];
  readonly decimals: number;
  /** Unix ms of its graduation, when known. */
  readonly graduationTime?: number | undefined;
  readonly graduationTx?: string | null | undefined;
  /** True when the token's history names its wallets' roles (`identity.roles`): its sniper and insider rooms are rebuilt. */
  readonly rolesNamed?: boolean | undefined;
}

/** One rebuilt frame: its time, room and payload. */
export interface RebuiltFrame {
  readonly t: number;
  readonly room: string;
  readonly data: unknown;
}

export interface RebuildStats {
  /** Swap and liquidity rows read (the whole history, before the window too). */
  readonly rows: number;
  /** Rows left out: no usable time, or of a type that is neither swap nor liquidity. */
  readonly skipped: number;
  /** Price frames without a liquidity figure (a row without its SOL amount or SOL price). */
  readonly noLiquidity: number;
}

type Row = Readonly<Record<string, unknown>>;

const num = (v: unknown): number | undefined => {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
};
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** Raw amount of a row: its integer `amountRaw`, else its decimal `amount` at `decimals`. */
function rawOf(raw: unknown, amount: unknown, decimals: number): bigint | undefined {
  if (typeof raw === 'string' && /^\d+$/.test(raw)) return BigInt(raw);
  const a = typeof amount === 'number' ? String(amount) : amount;
  if (typeof a !== 'string' || !/^\d+(\.\d+)?$/.test(a)) return undefined;
  try {
    return toRaw(a, decimals, 'down');
  } catch {
    return undefined; // counted by the caller as a price frame without liquidity
  }
}

/** Lamports of a swap row's SOL side (`solAmount` as a decimal string, or `volumeSol`). */
function solLamportsOf(r: Row): bigint | undefined {
  return rawOf(undefined, r['solAmount'] ?? r['volumeSol'], 9);
}

/**
 * The frames of one token's history `rows` (oldest first) that fall in `[fromMs, toMs]`. Rows before
 * the window still count for the derived reserves and curve progress.
 */
export function rebuildFrames(info: TokenInfo, rows: readonly Row[], fromMs: number, toMs: number): { frames: RebuiltFrame[]; stats: RebuildStats } {
  const frames: RebuiltFrame[] = [];
  const mint = info.mint;
  const inWindow = (t: number): boolean => t >= fromMs && t <= toMs;
  const solReserve = new Map<string, bigint>();
  const curveSold = new Map<string, bigint>();
  const initialCurveRaw = INITIAL_CURVE_TOKENS * 10n ** BigInt(info.decimals);
  let maxPct = 0;
  let skipped = 0;
  let noLiquidity = 0;
  const tokenName = str(info.token['name']) ?? '';
  const tokenSymbol = str(info.token['symbol']) ?? '';
  for (const r of rows) {
    const t = num(r['time']);
    const type = r['type'];
    const pool = str(r['pool']) ?? '';
    if (t === undefined) {
      skipped++;
      continue;
    }
    if (type === 'add_liquidity' || type === 'remove_liquidity') {
      const sol = Array.isArray(r['tokens']) ? (r['tokens'] as Row[]).find((x) => x['address'] === SOL_MINT) : undefined;
      const lamports = sol ? (rawOf(sol['amountRaw'], sol['amount'], 9) ?? 0n) : 0n;
      solReserve.set(pool, (solReserve.get(pool) ?? 0n) + (type === 'add_liquidity' ? lamports : -lamports));
      if (inWindow(t)) for (const room of [`liquidity:${mint}`, `liquidity:${mint}:${pool}`, `liquidity:pool:${pool}`]) frames.push({ t, room, data: [r] });
      continue;
    }
    if (type !== 'buy' && type !== 'sell') {
      skipped++;
      continue;
    }
    const sign = type === 'buy' ? 1n : -1n;
    const market = str(r['program']) ?? '';
    const lamports = solLamportsOf(r);
    const tokenRaw = rawOf(r['amountRaw'], r['amount'], info.decimals);
    if (lamports !== undefined) solReserve.set(pool, (solReserve.get(pool) ?? 0n) + sign * lamports);
    const curve = CURVE_MARKETS.has(market);
    const before = maxPct;
    if (curve && tokenRaw !== undefined) {
      const sold = (curveSold.get(pool) ?? 0n) + sign * tokenRaw;
      curveSold.set(pool, sold);
      const pct = Number((sold * 10_000n) / initialCurveRaw) / 100;
      if (pct > maxPct) maxPct = Math.min(100, pct);
    }
    if (!inWindow(t)) continue;
    const priceUsd = num(r['priceUsd']);
    const priceSol = num(r['priceSol']);
    const solUsd = priceUsd !== undefined && priceSol !== undefined && priceSol > 0 ? priceUsd / priceSol : undefined;
    const solAmount = lamports === undefined ? undefined : Number(fromRaw(lamports, 9));
    const amount = num(r['amount']);
    const tx = str(r['tx']) ?? '';
    const wallet = str(r['wallet']) ?? '';
    const tokenSide = { name: tokenName, symbol: tokenSymbol, address: mint, decimals: info.decimals, amount: amount ?? 0, price: { usd: priceUsd ?? 0 } };
    const solSide = { name: 'Wrapped SOL', symbol: 'SOL', address: SOL_MINT, decimals: 9, amount: solAmount ?? 0, price: { usd: solUsd ?? 0 } };
    const swap = {
      tx,
      type,
      wallet,
      pool,
      program: market,
      amount: amount ?? 0,
      priceUsd: priceUsd ?? 0,
      volume: num(r['volume']) ?? 0,
      solVolume: solAmount ?? 0,
      time: t,
      token: type === 'buy' ? { from: solSide, to: tokenSide } : { from: tokenSide, to: solSide },
    };
    frames.push({ t, room: `transaction:${mint}`, data: [swap] }, { t, room: `transaction:${mint}:${pool}`, data: [swap] });
    if (priceUsd !== undefined && priceUsd > 0) {
      const reserve = solReserve.get(pool);
      const liquidity = reserve !== undefined && lamports !== undefined && solUsd !== undefined ? ((2 * Number(reserve)) / 1e9) * solUsd : undefined;
      if (liquidity === undefined) noLiquidity++;
      frames.push({
        t,
        room: `price:token:${mint}`,
        data: {
          token: mint,
          pool,
          market,
          price: priceUsd,
          ...(priceSol !== undefined && priceSol > 0 ? { price_quote: priceSol } : {}),
          ...(liquidity !== undefined ? { liquidity } : {}),
          time: t,
        },
      });
    }
    if (curve && maxPct > before) {
      for (let threshold = Math.floor(before) + 1; threshold <= Math.floor(maxPct); threshold++) {
        const data = { token: info.token, pools: [{ poolId: pool, market }], curvePercentage: maxPct, threshold, tx, timestamp: t };
        frames.push({ t, room: `${market}:curve:${threshold}`, data });
        if (market !== 'launchpad') frames.push({ t, room: `launchpad:curve:${threshold}`, data });
      }
    }
  }
  // holders, dev holding, bundlers and top 10 from the same rows' wallets (rebuild-safety.ts)
  frames.push(...safetyFrames(info, rows, fromMs, toMs));
  if (info.graduationTime !== undefined && inWindow(info.graduationTime)) {
    const data = { token: info.token, pools: info.pools, graduationTx: info.graduationTx ?? null, graduationTime: info.graduationTime };
    // after every row of the same time: the graduation follows the trade that completed the curve
    let at = frames.length;
    while (at > 0 && frames[at - 1]!.t > info.graduationTime) at--;
    frames.splice(at, 0, { t: info.graduationTime, room: 'graduated', data });
  }
  frames.sort((a, b) => a.t - b.t);
  return { frames, stats: { rows: rows.length, skipped, noLiquidity } };
}

/** Room patterns a download rebuilds whole for a token (the header's `covered`). */
export function coveredRooms(info: Pick<TokenInfo, 'mint' | 'token' | 'pools' | 'rolesNamed'>): string[] {
  const mint = info.mint;
  return [`price:token:${mint}`, `transaction:${mint}`, `transaction:${mint}:*`, `liquidity:${mint}`, `liquidity:${mint}:*`, ...safetyRoomsOf(info).covered];
}

/** Rooms of a token a download could not rebuild whole: its dev holding without a known deployer, its sniper and insider rooms when no row names roles. */
export function absentRoomsOf(info: Pick<TokenInfo, 'mint' | 'token' | 'pools' | 'rolesNamed'>): string[] {
  return safetyRoomsOf(info).absent;
}

/** Room patterns REST history cannot rebuild (the header's `absent`): the backtest names them when joined. */
export const ABSENT_ROOMS: readonly string[] = [
  'latest',
  'graduating',
  'graduating:*:*',
  'token:*',
  'price:aggregated:*',
  'stats:token:*:total',
  'stats:pool:*:total',
  'volume:token:*',
  'volume:pool:*',
  'transaction:*:*:*',
  'transaction:wallet:*',
  'transaction:*:enriched',
  'transaction:*:*:enriched',
  'liquidity:*:*:*',
  'liquidity:wallet:*',
  'liquidity:*:enriched',
  'pnl:*',
  'pnl:*:*',
  'dca:*',
  'pm:crypto:*',
];
