/** Balance bookkeeping of one token, keeping the seeded-pick holder list in step. */
import type { TokenState, TraderRole } from './model-types.js';

/** Adds `delta` (may be negative) to `wallet`'s balance, clamping at zero. */
export function addBalance(t: TokenState, wallet: string, delta: bigint): bigint {
  const before = t.balances.get(wallet) ?? 0n;
  let after = before + delta;
  if (after < 0n) after = 0n;
  if (after === 0n) {
    t.balances.delete(wallet);
    const i = t.holderIndex.get(wallet);
    if (i !== undefined) {
      const last = t.holderList.pop()!;
      if (last !== wallet) {
        t.holderList[i] = last;
        t.holderIndex.set(last, i);
      }
      t.holderIndex.delete(wallet);
    }
  } else {
    t.balances.set(wallet, after);
    if (!t.holderIndex.has(wallet)) {
      t.holderIndex.set(wallet, t.holderList.length);
      t.holderList.push(wallet);
    }
  }
  return after;
}

export function addRole(t: TokenState, wallet: string, role: TraderRole): void {
  let set = t.roles.get(wallet);
  if (!set) {
    set = new Set();
    t.roles.set(wallet, set);
  }
  set.add(role);
}

/** Holders sorted by balance, largest first (ties by address for stable output). */
export function holdersByBalance(t: TokenState): [string, bigint][] {
  return [...t.balances.entries()].sort((a, b) => (a[1] === b[1] ? (a[0] < b[0] ? -1 : 1) : a[1] > b[1] ? -1 : 1));
}

/** Sum of balances of wallets holding `role` on this token. */
export function roleBalance(t: TokenState, role: TraderRole): { raw: bigint; wallets: string[] } {
  let raw = 0n;
  const wallets: string[] = [];
  for (const [w, roles] of t.roles) {
    if (!roles.has(role)) continue;
    wallets.push(w);
    raw += t.balances.get(w) ?? 0n;
  }
  return { raw, wallets };
}

/** `part / supply` in percent, to 0.01 %. */
export function pctOfSupply(t: TokenState, part: bigint): number {
  return Number((part * 10_000n) / t.supplyRaw) / 100;
}

/**
 * Sum of the `n` largest balances: what `holdersByBalance(t).slice(0, n)` adds up to, without
 * sorting every holder (ties do not change the sum).
 */
export function topBalancesSum(t: TokenState, n: number): bigint {
  const top: bigint[] = [];
  for (const b of t.balances.values()) {
    if (top.length === n && b <= top[n - 1]!) continue;
    let i = top.length < n ? top.length : n - 1;
    while (i > 0 && top[i - 1]! < b) {
      top[i] = top[i - 1]!;
      i--;
    }
    top[i] = b;
  }
  let sum = 0n;
  for (const b of top) sum += b;
  return sum;
}
