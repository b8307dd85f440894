/**
 * A small hand-written chain implementing the live executor's ports, for tests until the
 * simulator's ledger lands. It models what the executor must get right: blockhash expiry by block
 * height, a signature status store (recent vs. history), real ed25519 signature checks on the
 * exact bytes sent, dropped / delayed / failing transactions, RPC errors, and balances that move
 * only when a transaction lands.
 */
import { createPublicKey, verify } from 'node:crypto';
import {
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  SystemProgram,
  VersionedTransaction,
  type MessageCompiledInstruction,
  type VersionedMessage,
} from '@solana/web3.js';
import { TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from '../../../src/client/spl-token.js';
import { getBase58Decoder } from '@solana/kit';
import type { Clock } from '../../../src/core/clock.js';
import { ChainpilotError } from '../../../src/core/errors.js';
import { priorityFeeOf } from '../../../src/executors/live/inspect.js';
import type { Commitment, ConfirmedTransaction, LiveRpcPort, RpcAccount, SignatureStatus, TokenBalance } from '../../../src/executors/live/ports.js';

const b58 = getBase58Decoder();
/** The fake venue's swap program. */
export const FAKE_SWAP_PROGRAM = new PublicKey('SwapFake11111111111111111111111111111111111');

/** What happens to a transaction the chain receives for the first time. */
export type SendFate =
  | { readonly kind: 'land'; readonly afterBlocks?: number }
  | { readonly kind: 'drop' }
  | { readonly kind: 'fail' }
  /** The send call throws a timeout (unknown outcome) but the transaction lands later. */
  | { readonly kind: 'timeout-then-land'; readonly afterBlocks: number };

interface Landed {
  readonly signature: string;
  readonly height: number;
  readonly err: unknown | null;
  readonly tx: ConfirmedTransaction;
}

interface Pending {
  readonly signature: string;
  readonly tx: VersionedTransaction;
  readonly raw: Uint8Array;
  readonly landAt: number;
  readonly fail: boolean;
}

export interface FakeChainOptions {
  readonly clock: Clock;
  /** Milliseconds of clock time per block (default 400). */
  readonly blockMs?: number;
  /** Blocks a blockhash stays valid (default 150). */
  readonly validityBlocks?: number;
  /** Statuses older than this many blocks are only found with searchTransactionHistory (default 300). */
  readonly statusCacheBlocks?: number;
}

export interface FakeChain extends LiveRpcPort {
  readonly clock: Clock;
  height(): number;
  /** A fresh blockhash valid for `validityBlocks` from now. */
  latestBlockhash(): string;
  airdrop(owner: PublicKey, lamports: bigint): void;
  createMint(decimals: number): PublicKey;
  /** Gives the fake pool reserves for `mint` (constant product, no fee). */
  addPool(mint: PublicKey, solReserve: bigint, tokenReserve: bigint): void;
  lamportsOf(owner: PublicKey): bigint;
  tokensOf(owner: PublicKey, mint: PublicKey): bigint;
  /** Fates for the next new transactions, consumed in order (default: land next block). */
  fates: SendFate[];
  /** Errors thrown by the next calls of a method, consumed one per call. */
  failNext(method: keyof LiveRpcPort, count: number): void;
  /** Every status reported as finalized as soon as it lands (status jumping to finalized). */
  jumpToFinalized: boolean;
  /** Per-slot priority fees (micro-lamports per CU) getRecentPrioritizationFees answers. */
  recentFees: bigint[];
  readonly stats: { sends: Map<string, number>; landed: Landed[]; received: Set<string> };
  /** Lands due pending transactions (called by every RPC method). */
  tick(): void;
}

export function createFakeChain(options: FakeChainOptions): FakeChain {
  const { clock } = options;
  const blockMs = options.blockMs ?? 400;
  const validity = options.validityBlocks ?? 150;
  const cacheBlocks = options.statusCacheBlocks ?? 300;
  const t0 = clock.now();
  const lamports = new Map<string, bigint>();
  const tokenAccounts = new Map<string, { owner: PublicKey; mint: PublicKey; amount: bigint }>();
  const mints = new Map<string, number>();
  const pools = new Map<string, { sol: bigint; tok: bigint }>();
  const blockhashes = new Map<string, number>();
  const pending: Pending[] = [];
  const landed = new Map<string, Landed>();
  const failures = new Map<string, number>();
  let hashSeq = 0;

  const height = (): number => Math.floor((clock.now() - t0) / blockMs);

  const maybeFail = (method: string): void => {
    const n = failures.get(method) ?? 0;
    if (n > 0) {
      failures.set(method, n - 1);
      throw new ChainpilotError('HTTP_TIMEOUT', `fake rpc ${method} failed (injected)`, {
        retry: method === 'sendTransaction' ? 'unknown_outcome' : 'retryable',
      });
    }
  };

  const ata = (owner: PublicKey, mint: PublicKey): PublicKey => getAssociatedTokenAddressSync(mint, owner, true, TOKEN_PROGRAM_ID);

  const tokenAccountData = (a: { owner: PublicKey; mint: PublicKey; amount: bigint }): Buffer => {
    const data = Buffer.alloc(165);
    a.mint.toBuffer().copy(data, 0);
    a.owner.toBuffer().copy(data, 32);
    data.writeBigUInt64LE(a.amount, 64);
    data[108] = 1;
    return data;
  };

  const accountOf = (
    address: string,
    lam: Map<string, bigint>,
    toks: Map<string, { owner: PublicKey; mint: PublicKey; amount: bigint }>,
  ): RpcAccount | null => {
    const t = toks.get(address);
    if (t) return { lamports: 2_039_280n, owner: TOKEN_PROGRAM_ID.toBase58(), data: [tokenAccountData(t).toString('base64'), 'base64'], executable: false };
    if (mints.has(address))
      return { lamports: 1_461_600n, owner: TOKEN_PROGRAM_ID.toBase58(), data: [Buffer.alloc(82).toString('base64'), 'base64'], executable: false };
    const l = lam.get(address);
    return l === undefined ? null : { lamports: l, owner: SystemProgram.programId.toBase58(), data: ['', 'base64'], executable: false };
  };

  /** Executes a message against copies of the state; returns the new state or an error. */
  const execute = (message: VersionedMessage) => {
    const lam = new Map(lamports);
    const toks = new Map([...tokenAccounts].map(([k, v]) => [k, { ...v }]));
    const keys = message.staticAccountKeys;
    const payer = keys[0]!;
    const fee = 5_000n * BigInt(message.header.numRequiredSignatures) + priorityFeeOf(message);
    const payerBal = lam.get(payer.toBase58()) ?? 0n;
    if (payerBal < fee) return { err: 'InsufficientFundsForFee' as unknown, lam, toks, fee: 0n };
    lam.set(payer.toBase58(), payerBal - fee);
    const afterFee = new Map(lam);
    const run = (ix: MessageCompiledInstruction): string | null => {
      const program = keys[ix.programIdIndex]!;
      const acc = (i: number): PublicKey => keys[ix.accountKeyIndexes[i]!]!;
      const data = Buffer.from(ix.data);
      if (program.equals(ComputeBudgetProgram.programId)) return null;
      if (program.equals(SystemProgram.programId)) {
        if (data.readUInt32LE(0) !== 2) return 'unsupported system instruction';
        const amount = data.readBigUInt64LE(4);
        const from = acc(0).toBase58();
        const to = acc(1).toBase58();
        const bal = lam.get(from) ?? 0n;
        if (bal < amount) return 'insufficient lamports';
        lam.set(from, bal - amount);
        lam.set(to, (lam.get(to) ?? 0n) + amount);
        return null;
      }
      if (program.equals(FAKE_SWAP_PROGRAM)) {
        const side = data[0];
        const amountIn = data.readBigUInt64LE(1);
        const minOut = data.readBigUInt64LE(9);
        const user = acc(0);
        const mint = acc(1);
        const dest = acc(2).toBase58();
        const pool = pools.get(mint.toBase58());
        if (!pool) return 'no pool';
        if (side === 0) {
          const out = (pool.tok * amountIn) / (pool.sol + amountIn);
          if (out < minOut) return 'slippage exceeded';
          const bal = lam.get(user.toBase58()) ?? 0n;
          if (bal < amountIn) return 'insufficient lamports';
          lam.set(user.toBase58(), bal - amountIn);
          const t = toks.get(dest);
          if (!t) {
            // opens the destination token account (rent paid by the user)
            const b = lam.get(user.toBase58())!;
            if (b < 2_039_280n) return 'insufficient lamports for rent';
            lam.set(user.toBase58(), b - 2_039_280n);
            lam.set(dest, 2_039_280n); // the new account holds its rent, as on chain
            const owner = dest === ata(user, mint).toBase58() ? user : new PublicKey(keys[ix.accountKeyIndexes[3] ?? 0]!);
            toks.set(dest, { owner, mint, amount: out });
          } else t.amount += out;
          pool.sol += amountIn;
          pool.tok -= out;
          return null;
        }
        const src = toks.get(ata(user, mint).toBase58());
        if (!src || src.amount < amountIn) return 'insufficient tokens';
        const out = (pool.sol * amountIn) / (pool.tok + amountIn);
        if (out < minOut) return 'slippage exceeded';
        src.amount -= amountIn;
        lam.set(dest, (lam.get(dest) ?? 0n) + out);
        pool.sol -= out;
        pool.tok += amountIn;
        return null;
      }
      return `unknown program ${program.toBase58()}`;
    };
    const poolsBefore = new Map([...pools].map(([k, v]) => [k, { ...v }]));
    for (const ix of message.compiledInstructions) {
      const err = run(ix);
      if (err !== null) {
        for (const [k, v] of poolsBefore) pools.set(k, v);
        return {
          err: { InstructionError: [0, { Custom: err }] } as unknown,
          lam: afterFee,
          toks: new Map([...tokenAccounts].map(([k, v]) => [k, { ...v }])),
          fee,
        };
      }
    }
    return { err: null, lam, toks, fee, poolsBefore };
  };

  const tokenBalances = (keys: PublicKey[], toks: Map<string, { owner: PublicKey; mint: PublicKey; amount: bigint }>): TokenBalance[] => {
    const out: TokenBalance[] = [];
    keys.forEach((k, i) => {
      const t = toks.get(k.toBase58());
      if (t)
        out.push({
          accountIndex: i,
          mint: t.mint.toBase58(),
          owner: t.owner.toBase58(),
          uiTokenAmount: { amount: t.amount.toString(), decimals: mints.get(t.mint.toBase58()) ?? 0 },
        });
    });
    return out;
  };

  const land = (p: Pending, h: number): void => {
    const keys = p.tx.message.staticAccountKeys;
    const preBalances = keys.map((k) => lamports.get(k.toBase58()) ?? 0n);
    const preTokenBalances = tokenBalances(keys, tokenAccounts);
    const r = execute(p.tx.message);
    let err: unknown | null = r.err;
    if (p.fail && err === null) {
      // injected on-chain failure: undo the pool move, charge only the fee
      if (r.poolsBefore) for (const [k, v] of r.poolsBefore) pools.set(k, v);
      const payer = keys[0]!.toBase58();
      r.lam = new Map(lamports);
      r.lam.set(payer, (lamports.get(payer) ?? 0n) - r.fee);
      r.toks = new Map([...tokenAccounts].map(([k, v]) => [k, { ...v }]));
      err = { InstructionError: [0, { Custom: 6001 }] };
    }
    lamports.clear();
    for (const [k, v] of r.lam) lamports.set(k, v);
    tokenAccounts.clear();
    for (const [k, v] of r.toks) tokenAccounts.set(k, v);
    const rec: Landed = {
      signature: p.signature,
      height: h,
      err,
      tx: {
        slot: h,
        blockTime: Math.floor(clock.now() / 1000),
        meta: {
          fee: r.fee,
          err,
          preBalances,
          postBalances: keys.map((k) => lamports.get(k.toBase58()) ?? 0n),
          preTokenBalances,
          postTokenBalances: tokenBalances(keys, tokenAccounts),
        },
        transaction: [Buffer.from(p.raw).toString('base64'), 'base64'],
      },
    };
    landed.set(p.signature, rec);
    chain.stats.landed.push(rec);
  };

  const tick = (): void => {
    const h = height();
    for (let i = 0; i < pending.length;) {
      const p = pending[i]!;
      const lastValid = blockhashes.get(p.tx.message.recentBlockhash) ?? -1;
      if (h > lastValid) {
        pending.splice(i, 1); // can never land any more
      } else if (p.landAt <= h) {
        pending.splice(i, 1);
        land(p, Math.max(p.landAt, 0));
      } else i++;
    }
  };

  const verifySignature = (tx: VersionedTransaction): boolean => {
    const payer = tx.message.staticAccountKeys[0];
    const sig = tx.signatures[0];
    if (!payer || !sig) return false;
    const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), payer.toBuffer()]), format: 'der', type: 'spki' });
    return verify(null, tx.message.serialize(), key, sig);
  };

  const chain: FakeChain = {
    clock,
    fates: [],
    jumpToFinalized: false,
    recentFees: [],
    stats: { sends: new Map(), landed: [], received: new Set() },
    height,
    tick,
    latestBlockhash() {
      const hash = b58.decode(
        Keypair.fromSeed(
          Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? hashSeq++ % 256 : i === 1 ? Math.floor(hashSeq / 256) % 256 : 7)),
        ).publicKey.toBytes(),
      );
      blockhashes.set(hash, height() + validity);
      return hash;
    },
    airdrop(owner, l) {
      lamports.set(owner.toBase58(), (lamports.get(owner.toBase58()) ?? 0n) + l);
    },
    createMint(decimals) {
      const mint = Keypair.generate().publicKey;
      mints.set(mint.toBase58(), decimals);
      return mint;
    },
    addPool(mint, sol, tok) {
      pools.set(mint.toBase58(), { sol, tok });
    },
    lamportsOf: (o) => lamports.get(o.toBase58()) ?? 0n,
    tokensOf: (o, m) => tokenAccounts.get(ata(o, m).toBase58())?.amount ?? 0n,
    failNext(method, count) {
      failures.set(method, (failures.get(method) ?? 0) + count);
    },

    async sendTransaction(txBase64) {
      tick();
      const raw = Buffer.from(txBase64, 'base64');
      const tx = VersionedTransaction.deserialize(raw);
      if (!verifySignature(tx)) throw new ChainpilotError('HTTP_TIMEOUT', 'fake rpc: signature verification failed', { retry: 'not_retryable' });
      const signature = b58.decode(tx.signatures[0]!);
      chain.stats.sends.set(signature, (chain.stats.sends.get(signature) ?? 0) + 1);
      const isNew = !chain.stats.received.has(signature);
      chain.stats.received.add(signature);
      let throwAfter = false;
      if (isNew) {
        const fate = chain.fates.shift() ?? { kind: 'land' };
        if (fate.kind === 'land' || fate.kind === 'fail')
          pending.push({ signature, tx, raw, landAt: height() + (fate.kind === 'land' ? (fate.afterBlocks ?? 1) : 1), fail: fate.kind === 'fail' });
        else if (fate.kind === 'timeout-then-land') {
          pending.push({ signature, tx, raw, landAt: height() + fate.afterBlocks, fail: false });
          throwAfter = true;
        }
      }
      maybeFail('sendTransaction');
      if (throwAfter) throw new ChainpilotError('HTTP_TIMEOUT', 'fake rpc: sendTransaction timed out', { retry: 'unknown_outcome' });
      return signature;
    },

    async getSignatureStatuses(signatures, opts) {
      tick();
      maybeFail('getSignatureStatuses');
      const h = height();
      return {
        context: { slot: h },
        value: signatures.map((s): SignatureStatus | null => {
          const l = landed.get(s);
          if (!l) return null;
          if (!opts?.searchTransactionHistory && h - l.height > cacheBlocks) return null;
          const age = h - l.height;
          const confirmationStatus: Commitment = chain.jumpToFinalized || age >= 32 ? 'finalized' : age >= 1 ? 'confirmed' : 'processed';
          return { slot: l.height, confirmations: confirmationStatus === 'finalized' ? null : age, err: l.err, confirmationStatus };
        }),
      };
    },

    async getBlockHeight() {
      tick();
      maybeFail('getBlockHeight');
      return height();
    },

    async simulateTransaction(txBase64, opts) {
      tick();
      maybeFail('simulateTransaction');
      const tx = VersionedTransaction.deserialize(Buffer.from(txBase64, 'base64'));
      const poolsBefore = new Map([...pools].map(([k, v]) => [k, { ...v }]));
      const r = execute(tx.message);
      for (const [k, v] of poolsBefore) pools.set(k, v);
      return {
        context: { slot: height() },
        value: {
          err: r.err,
          logs: [],
          accounts: opts?.accounts ? opts.accounts.addresses.map((a) => accountOf(a, r.lam, r.toks)) : null,
        },
      };
    },

    async getTransaction(signature) {
      tick();
      maybeFail('getTransaction');
      return landed.get(signature)?.tx ?? null;
    },

    async getRecentPrioritizationFees() {
      tick();
      return chain.recentFees.map((prioritizationFee, i) => ({ slot: height() - i, prioritizationFee }));
    },

    async getMultipleAccounts(addresses) {
      tick();
      maybeFail('getMultipleAccounts');
      return { context: { slot: height() }, value: addresses.map((a) => accountOf(a, lamports, tokenAccounts)) };
    },
  };
  return chain;
}
