/**
 * The safety rooms a token's REST history can rebuild: `holders:{mint}`, `dev_holding:{mint}`,
 * `bundlers:{mint}` and `top10:{mint}`. The history the download pages (`events=all`, oldest first,
 * from the pool's creation) has every swap with its wallet and transaction, so each wallet's balance
 * at every swap is the sum of its swaps (buys add their tokens, sells remove them, never below zero),
 * and:
 * - the holder count is the number of wallets with a positive balance, published at every swap;
 * - the dev's holding is the balance of the token's deployer (`pools[].deployer`, else the token's
 *   `creator`), published at each of the deployer's swaps;
 * - the bundlers are the wallets other than the deployer that bought in the launch transaction (the
 *   curve pool's `creation.created_tx`, else the history's first swap's transaction); their share is
 *   published at each of their swaps;
 * - the top-10 share is the ten largest balances, published at every swap.
 * Shares are of the launchpad's supply, 1,000,000,000 whole tokens (`LAUNCHPAD_SUPPLY_TOKENS`: the
 * token record carries no supply; an assumption about the venue, like the curve's reserve), in percent
 * to 0.01 % (floored), as the stream sends them.
 *
 * - `sniper:{mint}` and `insider:{mint}`: which wallets are snipers or insiders is the service's own
 *   labelling. The history is fetched with `enrich=identity`; where a row's identity names the wallet's
 *   roles on the token (`identity.roles`, as the simulator does; the spec lists tags and developer
 *   labels, not these roles), a wallet is a sniper or insider from its first swap so labelled, and
 *   both rooms are rebuilt like the bundlers'. A token none of whose rows carries `roles` has both
 *   rooms marked absent (the header's `absent`): a backtest names them as joined blind.
 *
 * What stays out: balances moved by plain transfers (not in the trade history: a token whose holders
 * transfer to each other has its shares off by those transfers). Only swaps in the window give frames;
 * those before it still count for the balances.
 */
import type { RebuiltFrame, TokenInfo } from './rebuild-frames.js';

/** Whole tokens a launchpad token is minted with (the simulator's and the launchpad's supply). */
export const LAUNCHPAD_SUPPLY_TOKENS = 1_000_000_000n;

/** Markets whose pool is a bonding curve: their pool's creation is the token's launch. */
const CURVE_POOL_MARKETS: ReadonlySet<string> = new Set(['venue_a', 'launchpad', 'venue_c', 'venue_d-curve']);

type Row = Readonly<Record<string, unknown>>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** The deployer of a token: its pools' `deployer`, else the token record's `creator`. */
export function deployerOf(info: Pick<TokenInfo, 'token' | 'pools'>): string | undefined {
  for (const p of info.pools) {
    const d = str(p['deployer']) ?? str((p['creation'] as Row | undefined)?.['creator']);
    if (d) return d;
  }
  return str(info.token['creator']);
}

/** The launch transaction: the curve pool's creation, undefined when the record does not say. */
function launchTxOf(info: Pick<TokenInfo, 'pools'>): string | undefined {
  const curve = info.pools.find((p) => CURVE_POOL_MARKETS.has(String(p['market'])));
  return str((curve?.['creation'] as Row | undefined)?.['created_tx']);
}

/** A swap row's raw token amount (`amountRaw`), undefined when it has none. */
const rawOf = (r: Row): bigint | undefined => (typeof r['amountRaw'] === 'string' && /^\d+$/.test(r['amountRaw']) ? BigInt(r['amountRaw']) : undefined);

/** The safety frames of one token's history `rows` (oldest first) in `[fromMs, toMs]`. */
export function safetyFrames(info: TokenInfo, rows: readonly Row[], fromMs: number, toMs: number): RebuiltFrame[] {
  const mint = info.mint;
  const supply = LAUNCHPAD_SUPPLY_TOKENS * 10n ** BigInt(info.decimals);
  const pct = (raw: bigint): number => Number(((raw < 0n ? 0n : raw) * 10_000n) / supply) / 100;
  const deployer = deployerOf(info);
  let launchTx = launchTxOf(info);
  const balances = new Map<string, bigint>();
  const bundlers = new Set<string>();
  let bundlerRaw = 0n;
  const labelled = { sniper: new Set<string>(), insider: new Set<string>() };
  const labelledRaw = { sniper: 0n, insider: 0n };
  let holders = 0;
  const last: Record<'dev' | 'bundlers' | 'sniper' | 'insider' | 'top10' | 'holders', number | null> = {
    holders: null,
    dev: null,
    bundlers: null,
    sniper: null,
    insider: null,
    top10: null,
  };
  const out: RebuiltFrame[] = [];
  for (const r of rows) {
    const t = typeof r['time'] === 'number' ? r['time'] : undefined;
    const side = r['type'];
    const wallet = str(r['wallet']);
    const raw = rawOf(r);
    if (t === undefined || (side !== 'buy' && side !== 'sell') || wallet === undefined || raw === undefined) continue;
    const tx = str(r['tx']);
    launchTx ??= tx;
    const roles = rolesOf(r);
    if (side === 'buy' && wallet !== deployer && ((tx !== undefined && tx === launchTx) || roles?.includes('bundler'))) bundlers.add(wallet);
    for (const role of ['sniper', 'insider'] as const) if (roles?.includes(role)) labelled[role].add(wallet);
    // a balance never goes below zero: a sell of more than the wallet's swaps bought sold tokens that
    // came by transfer (not in the history), and its next buy starts from nothing
    const before = balances.get(wallet) ?? 0n;
    const after = side === 'buy' ? before + raw : before > raw ? before - raw : 0n;
    const change = after - before;
    balances.set(wallet, after);
    holders += (after > 0n ? 1 : 0) - (before > 0n ? 1 : 0);
    if (bundlers.has(wallet)) bundlerRaw += change;
    for (const role of ['sniper', 'insider'] as const) if (labelled[role].has(wallet)) labelledRaw[role] += change;
    const inWindow = t >= fromMs && t <= toMs;
    // the holder count (wallets with a positive balance) at every swap, as the stream publishes it to a
    // room joined since (the first swap after a join carries it even when unchanged)
    if (inWindow) out.push({ t, room: `holders:${mint}`, data: { token: mint, total: holders, previous: last.holders, timestamp: t } });
    last.holders = holders;
    const amounts = {
      wallet,
      currentAmount: after.toString(),
      previousAmount: before.toString(),
      currentPercentage: pct(after),
      previousPercentage: pct(before),
    };
    if (wallet === deployer) {
      const p = pct(after);
      if (inWindow)
        out.push({
          t,
          room: `dev_holding:${mint}`,
          data: { token: mint, creator: deployer, deployer, amount: amounts.currentAmount, percentage: p, previousPercentage: last.dev, timestamp: t },
        });
      last.dev = p;
    }
    if (bundlers.has(wallet)) {
      const p = pct(bundlerRaw);
      const data = {
        token: mint,
        ...amounts,
        currentCount: bundlers.size,
        previousCount: bundlers.size,
        totalBundlerPercentage: p,
        previousTotalPercentage: last.bundlers,
        timestamp: t,
      };
      if (inWindow) out.push({ t, room: `bundlers:${mint}`, data });
      last.bundlers = p;
    }
    // like the service, sniper and insider messages carry both totals; each room's figure is its own
    const both = { totalSniperPercentage: pct(labelledRaw.sniper), totalInsiderPercentage: pct(labelledRaw.insider) };
    for (const role of ['sniper', 'insider'] as const) {
      if (!labelled[role].has(wallet)) continue;
      const p = both[role === 'sniper' ? 'totalSniperPercentage' : 'totalInsiderPercentage'];
      const count = labelled[role].size;
      if (inWindow)
        out.push({
          t,
          room: `${role}:${mint}`,
          data: { token: mint, ...amounts, currentCount: count, previousCount: count, ...both, previousTotalPercentage: last[role], timestamp: t },
        });
      last[role] = p;
    }
    // at every swap, as the stream publishes it to a room joined since (the first swap after a join
    // carries the value even when unchanged; a later unchanged one repeats it, which changes nothing)
    const top = pct(topTenSum(balances));
    if (inWindow) out.push({ t, room: `top10:${mint}`, data: { token: mint, totalPercentage: top, previousPercentage: last.top10, timestamp: t } });
    last.top10 = top;
  }
  return out;
}

/** The roles a row's identity names for its wallet on the token (`identity.roles`), undefined when it names none. */
function rolesOf(r: Row): readonly string[] | undefined {
  const roles = (r['identity'] as Row | null | undefined)?.['roles'];
  return Array.isArray(roles) ? roles.filter((x): x is string => typeof x === 'string') : undefined;
}

/** True when some row's identity names its wallet's roles on the token (the service labels snipers and insiders). */
export function historyNamesRoles(rows: readonly Row[]): boolean {
  return rows.some((r) => rolesOf(r) !== undefined);
}

/** The sum of the ten largest positive balances. */
function topTenSum(balances: ReadonlyMap<string, bigint>): bigint {
  const top: bigint[] = [];
  for (const b of balances.values()) {
    if (b <= 0n) continue;
    if (top.length < 10) {
      top.push(b);
      top.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    } else if (b > top[0]!) {
      top[0] = b;
      top.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    }
  }
  return top.reduce((a, b) => a + b, 0n);
}

/**
 * The safety rooms a download rebuilds whole for a token: `dev_holding` when its deployer is known,
 * `sniper` and `insider` when its history names wallets' roles (`rolesNamed`).
 */
export function safetyRoomsOf(info: Pick<TokenInfo, 'mint' | 'token' | 'pools' | 'rolesNamed'>): { covered: string[]; absent: string[] } {
  const m = info.mint;
  const known = deployerOf(info) !== undefined;
  const labelled = info.rolesNamed === true ? [`sniper:${m}`, `insider:${m}`] : [];
  return {
    covered: [`bundlers:${m}`, `top10:${m}`, ...(known ? [`dev_holding:${m}`] : []), ...labelled],
    absent: [...(known ? [] : [`dev_holding:${m}`]), ...(info.rolesNamed === true ? [] : [`sniper:${m}`, `insider:${m}`])],
  };
}
