import type { PublicKey } from '@solana/web3.js';
import { Keypair, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from '../../src/client/spl-token.js';
import { describe, expect, it } from 'vitest';
import { inspectedBuy } from '../helpers/intents.js';
import { BASE_ALLOWED_PROGRAMS, inspectSwap } from '../../src/executors/live/inspect.js';
import type { LiveRpcPort, RpcAccount } from '../../src/executors/live/ports.js';

const key = (n: number): PublicKey => Keypair.fromSeed(new Uint8Array(32).fill(n)).publicKey;
const wallet = key(1);
const venue = key(2);
const mint = key(3);
const otherMint = key(4);
const attacker = key(5);
const ours = getAssociatedTokenAddressSync(mint, wallet, true);
const otherAccount = getAssociatedTokenAddressSync(otherMint, wallet, true);

interface TokenState {
  mint: PublicKey;
  owner: PublicKey;
  amount: bigint;
  delegate?: PublicKey;
  closeAuthority?: PublicKey;
}
const tokenAccount = (t: TokenState): RpcAccount => {
  const d = Buffer.alloc(165);
  t.mint.toBuffer().copy(d, 0);
  t.owner.toBuffer().copy(d, 32);
  d.writeBigUInt64LE(t.amount, 64);
  if (t.delegate) {
    d.writeUInt32LE(1, 72);
    t.delegate.toBuffer().copy(d, 76);
  }
  d[108] = 1;
  if (t.closeAuthority) {
    d.writeUInt32LE(1, 129);
    t.closeAuthority.toBuffer().copy(d, 133);
  }
  return { lamports: 2_039_280n, owner: TOKEN_PROGRAM_ID.toBase58(), data: [d.toString('base64'), 'base64'], executable: false };
};
const sol = (lamports: bigint): RpcAccount => ({ lamports, owner: '11111111111111111111111111111111', data: ['', 'base64'], executable: false });

/** A venue swap the instruction checks cannot judge: everything happens inside the venue program. */
function built() {
  return builtWith();
}

/** The same swap, also writing `extra` (a pool vault, say). */
function builtWith(...extra: PublicKey[]) {
  const ix = new TransactionInstruction({
    programId: venue,
    keys: [
      { pubkey: wallet, isSigner: true, isWritable: true },
      { pubkey: ours, isSigner: false, isWritable: true },
      { pubkey: otherAccount, isSigner: false, isWritable: true },
      ...extra.map((pubkey) => ({ pubkey, isSigner: false, isWritable: true })),
      { pubkey: TOKEN_PROGRAM_ID, isSigner: false, isWritable: false },
    ],
    data: Buffer.from([1]),
  });
  const message = new TransactionMessage({ payerKey: wallet, recentBlockhash: key(9).toBase58(), instructions: [ix] }).compileToV0Message();
  const transaction = new VersionedTransaction(message);
  const raw = transaction.serialize();
  return { transaction, raw, base64: Buffer.from(raw).toString('base64') };
}

const intent = inspectedBuy(mint.toBase58(), { referencePrice: undefined });

/** An RPC whose simulation turns `pre` into `post` (accounts keyed by address). */
function rpc(pre: Map<string, RpcAccount>, post: Map<string, RpcAccount | null>): Pick<LiveRpcPort, 'simulateTransaction' | 'getMultipleAccounts'> {
  return {
    getMultipleAccounts: async (addresses) => ({ context: { slot: 7 }, value: addresses.map((a) => pre.get(a) ?? null) }),
    simulateTransaction: async (_tx, o) => ({
      context: { slot: 7 },
      value: { err: null, logs: [], accounts: (o?.accounts?.addresses ?? []).map((a) => (post.has(a) ? post.get(a)! : (pre.get(a) ?? null))) },
    }),
  };
}

const policy = { allowedPrograms: new Set([...BASE_ALLOWED_PROGRAMS, venue.toBase58()]), rentBudgetLamports: 2_039_280n };
const before = new Map<string, RpcAccount>([
  [wallet.toBase58(), sol(10_000_000n)],
  [otherAccount.toBase58(), tokenAccount({ mint: otherMint, owner: wallet, amount: 50n })],
]);
const honestAfter: [string, RpcAccount | null][] = [
  [wallet.toBase58(), sol(10_000_000n - 1_000_000n - 5_000n - 2_039_280n)],
  [ours.toBase58(), tokenAccount({ mint, owner: wallet, amount: 42n })],
];

describe('inspection compares every token account our wallet owns in the simulation', () => {
  it('passes a venue swap that only spends the input and delivers the output', async () => {
    const r = await inspectSwap(built(), intent, wallet, rpc(before, new Map(honestAfter)), policy);
    expect(r).toMatchObject({ ok: true, simulatedOut: 42n });
  });

  it.each<[string, RpcAccount | null, RegExp]>([
    [
      'takes tokens from',
      tokenAccount({ mint: otherMint, owner: wallet, amount: 49n }),
      /takes 1 raw tokens from our token account .* which is not the intended input/,
    ],
    ['delegates', tokenAccount({ mint: otherMint, owner: wallet, amount: 50n, delegate: attacker }), /delegates our token account .* to /],
    ['re-assigns', tokenAccount({ mint: otherMint, owner: attacker, amount: 50n }), /re-assigns our token account .* to owner /],
    ['closes', null, /closes our token account .* which is neither the intended input nor the output/],
    [
      'hands the close authority of',
      tokenAccount({ mint: otherMint, owner: wallet, amount: 50n, closeAuthority: attacker }),
      /gives the close authority of our token account/,
    ],
  ])('rejects a venue instruction that %s another token account of ours', async (_what, after, reason) => {
    const post = new Map<string, RpcAccount | null>([...honestAfter, [otherAccount.toBase58(), after]]);
    const r = await inspectSwap(built(), intent, wallet, rpc(before, post), policy);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe('LIVE_INSPECTION_ACCOUNT');
    expect(r.reason).toMatch(reason);
    expect(r.reason).toContain(`mint ${otherMint.toBase58()}`);
  });

  it('does not count another transaction of ours that lands between the pre-read and the simulation as this swap outflow', async () => {
    // Our other swap takes 3 SOL from the wallet; it lands after the first pre-read, so the first
    // simulation shows both outflows. The read after it finds the wallet moved: the verdict is
    // not trusted, and the simulation is judged again against that read.
    const other = 3_000_000_000n;
    const start = new Map(before).set(wallet.toBase58(), sol(10_000_000n + other));
    const moved = before; // after our other swap
    const reads = [start, moved, moved];
    const calls: string[] = [];
    const scripted: Pick<LiveRpcPort, 'simulateTransaction' | 'getMultipleAccounts'> = {
      getMultipleAccounts: async (addresses) => {
        calls.push('read');
        const state = reads.shift() ?? moved;
        return { context: { slot: 7 }, value: addresses.map((a) => state.get(a) ?? null) };
      },
      simulateTransaction: async (_tx, o) => {
        calls.push('simulate');
        const post = new Map<string, RpcAccount | null>(honestAfter);
        return {
          context: { slot: 7 },
          value: { err: null, logs: [], accounts: (o?.accounts?.addresses ?? []).map((a) => (post.has(a) ? post.get(a)! : (moved.get(a) ?? null))) },
        };
      },
    };
    const r = await inspectSwap(built(), intent, wallet, scripted, policy);
    expect(r).toMatchObject({ ok: true, simulatedOut: 42n });
    expect(calls).toEqual(['read', 'simulate', 'read', 'simulate']);
  });

  it('rejects, unsigned, when our accounts keep moving under every simulation', async () => {
    let lamports = 100_000_000_000n;
    const drifting: Pick<LiveRpcPort, 'simulateTransaction' | 'getMultipleAccounts'> = {
      getMultipleAccounts: async (addresses) => {
        lamports -= 1_000_000_000n; // something of ours lands between every two reads
        const state = new Map(before).set(wallet.toBase58(), sol(lamports));
        return { context: { slot: 7 }, value: addresses.map((a) => state.get(a) ?? null) };
      },
      simulateTransaction: async (_tx, o) => ({
        context: { slot: 7 },
        value: { err: null, logs: [], accounts: (o?.accounts?.addresses ?? []).map((a) => (a === wallet.toBase58() ? sol(1n) : (before.get(a) ?? null))) },
      }),
    };
    const r = await inspectSwap(built(), intent, wallet, drifting, policy);
    expect(r).toMatchObject({ ok: false, code: 'LIVE_INSPECTION_SIMULATION' });
    expect(r.ok || r.reason).toMatch(/our accounts changed while the simulation ran/);
  });

  it('keeps a rejection when only accounts that are not ours (a pool vault) changed after the simulation', async () => {
    const vault = key(6);
    let n = 0;
    const busyPool: Pick<LiveRpcPort, 'simulateTransaction' | 'getMultipleAccounts'> = {
      getMultipleAccounts: async (addresses) => {
        const state = new Map(before).set(vault.toBase58(), sol(BigInt(++n)));
        return { context: { slot: 7 }, value: addresses.map((a) => state.get(a) ?? null) };
      },
      simulateTransaction: async (_tx, o) => ({
        context: { slot: 7 },
        value: { err: null, logs: [], accounts: (o?.accounts?.addresses ?? []).map((a) => (a === wallet.toBase58() ? sol(1n) : (before.get(a) ?? null))) },
      }),
    };
    const r = await inspectSwap(builtWith(vault), intent, wallet, busyPool, policy);
    expect(r).toMatchObject({ ok: false, code: 'LIVE_INSPECTION_OUTFLOW' });
    expect(n).toBe(2); // the pre-read and the one confirming read
  });

  it('refuses the same swap in static mode: a venue program delivers the output, which decoded instructions cannot prove', async () => {
    const never = {
      getMultipleAccounts: () => Promise.reject(new Error('no RPC in static mode')),
      simulateTransaction: () => Promise.reject(new Error('no RPC in static mode')),
    };
    expect(await inspectSwap(built(), intent, wallet, never, { ...policy, mode: 'static' })).toMatchObject({ ok: false, code: 'LIVE_INSPECTION_OUTPUT' });
  });
});
