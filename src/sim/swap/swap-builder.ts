/**
 * Builds swap transactions against the model's current curve or pool price. The transaction moves
 * fixed amounts (the quote now): the input from the wallet to the pool and the output from the
 * pool's vault to the wallet, partially signed by the pool authority; the fee payer is the wallet;
 * compute-budget instructions carry the priority fee; a Memo carries the terms the ledger checks
 * at landing (the swap fails, paying its fee, if the model then gives less than the slippage bound).
 */
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, createTransferInstruction, getAssociatedTokenAddressSync } from '../../client/spl-token.js';
import { compileLegacyMessage } from './compile-legacy.js';
import { compileV0Message } from './compile-v0.js';
import { maliciousInstruction } from './malicious-builder.js';
import { hostileSwap } from './hostile-swap.js';
import { BoundedMap, ChainpilotError, mulDiv, toRaw, type Random } from '../../core/index.js';
import type { SimMarketPort } from '../market-port.js';
import type { Ledger, PoolAccounts } from '../ledger/ledger-types.js';
import { encodeSwapMemo, MEMO_PROGRAM } from '../ledger/swap-memo.js';
import { rememberOwnSignature } from '../ledger/parsed-tx.js';
import type { SwapRequest } from './swap-request.js';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** Compute-unit limit every swap asks for. */
export const SWAP_CU_LIMIT = 200_000;

export interface SwapBuilderDeps {
  readonly market: SimMarketPort;
  readonly ledger: Ledger;
  readonly random: Random;
  /**
   * `legacy` (default): legacy transactions naming every account. `v0`: versioned transactions
   * that load the pool's token vault and the mint from the pool's address lookup table on the ledger.
   */
  readonly transactions?: SwapTransactionFormat;
}

/** The format of the swap service's transactions. */
export type SwapTransactionFormat = 'legacy' | 'v0';

export interface BuiltSwap {
  /** Base64 wire transaction, partially signed (the wallet signs next). */
  readonly txn: string;
  readonly amountIn: bigint;
  readonly amountOut: bigint;
  readonly minOut: bigint;
}

/** Creates the builder; `build` throws LEDGER_TOKEN_NOT_TRADABLE or LEDGER_INVALID_SWAP_REQUEST. */
export function createSwapBuilder(deps: SwapBuilderDeps): { build(req: SwapRequest): BuiltSwap } {
  const memoProgram = new PublicKey(MEMO_PROGRAM);
  const attacker = Keypair.fromSeed(deps.random.fork('malicious-builder').bytes(32)).publicKey;
  // node:crypto signs ed25519 natively, many times faster than web3.js's JavaScript signer.
  const keys = new Map<string, KeyObject>();
  const signingKey = (pool: PoolAccounts): KeyObject => {
    let k = keys.get(pool.poolId);
    if (!k) {
      const seed = pool.authority.secretKey.subarray(0, 32);
      k = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
      keys.set(pool.poolId, k);
    }
    return k;
  };
  // Deriving an associated address is a curve search, and a PublicKey from text a base58 decode:
  // bounded caches (by the request's text) keep both off the hot path, and handing out the same
  // objects lets the message compiler reuse their bytes.
  const atas = new BoundedMap<string, PublicKey>(4_096);
  const ataOf = (mint: PublicKey, mintText: string, owner: PublicKey, ownerText: string): PublicKey => {
    const key = `${ownerText}:${mintText}`;
    let a = atas.get(key);
    if (!a) {
      a = getAssociatedTokenAddressSync(mint, owner, true);
      atas.set(key, a);
    }
    return a;
  };
  const wallets = new BoundedMap<string, PublicKey>(4_096);
  const walletKey = (text: string): PublicKey => {
    let k = wallets.get(text);
    if (!k) {
      k = new PublicKey(text);
      wallets.set(text, k);
    }
    return k;
  };
  // Keypair.publicKey builds a new PublicKey on every read.
  const authorities = new Map<string, PublicKey>();
  const authorityOf = (pool: PoolAccounts): PublicKey => {
    let k = authorities.get(pool.poolId);
    if (!k) {
      k = pool.authority.publicKey;
      authorities.set(pool.poolId, k);
    }
    return k;
  };
  return {
    build(asked) {
      const hostile = deps.ledger.faults.nextSwapHostile();
      const req = hostile === 'otherMint' && asked.side === 'buy' ? { ...asked, mint: otherTradableMint(deps.market, asked.mint) } : asked;
      const pool = deps.market.pool(req.mint);
      if (!pool || !pool.tradable) {
        throw new ChainpilotError('LEDGER_TOKEN_NOT_TRADABLE', `${req.side === 'buy' ? 'to' : 'from'}: token ${req.mint} is unknown or cannot trade now`, {
          retry: pool ? 'retryable' : 'not_retryable',
          context: { mint: req.mint },
        });
      }
      const decimals = req.side === 'buy' ? 9 : pool.decimals;
      let amountIn: bigint;
      try {
        amountIn = toRaw(req.amount, decimals);
      } catch {
        throw new ChainpilotError('LEDGER_INVALID_SWAP_REQUEST', `amount: ${req.amount} has more than ${decimals} decimal places`, {
          retry: 'not_retryable',
          context: { field: 'amount' },
        });
      }
      const quote = deps.market.quote(req.mint, req.side, amountIn);
      if (!quote || quote.amountOut <= 0n) {
        throw new ChainpilotError('LEDGER_INVALID_SWAP_REQUEST', `amount: ${req.amount} is too small to get any output from the pool`, {
          retry: 'not_retryable',
          context: { field: 'amount' },
        });
      }
      const minOut = mulDiv(quote.amountOut, BigInt(10_000 - req.slippageBps), 10_000n);
      const accounts = deps.ledger.poolAccounts(quote.pool);
      const wallet = walletKey(req.wallet);
      const walletAta = ataOf(accounts.mint, req.mint, wallet, req.wallet);
      const authority = authorityOf(accounts);
      const { blockhash } = deps.ledger.latestBlockhash();
      const microLamports = (req.priorityFeeLamports * 1_000_000n) / BigInt(SWAP_CU_LIMIT);

      let tx: TransactionInstruction[] = [];
      let payer = wallet;
      let coSigners: Keypair[] | undefined;
      let tableAddresses: PublicKey[] | undefined = deps.transactions === 'v0' ? [accounts.tokenVault, accounts.mint] : undefined;
      tx.push(computeUnitLimit(SWAP_CU_LIMIT), computeUnitPrice(microLamports));
      if (hostile) {
        const parts = { side: req.side, wallet, walletAta, authority, mint: accounts.mint, decimals: pool.decimals, tokenVault: accounts.tokenVault };
        const built = hostileSwap(hostile, {
          ...parts,
          amountIn,
          amountOut: quote.amountOut,
          computeUnits: SWAP_CU_LIMIT,
          microLamports,
          attacker,
        });
        ({ instructions: tx, payer, coSigners } = built);
        tableAddresses = built.tableAddresses ?? tableAddresses;
      } else if (req.side === 'buy') {
        tx.push(
          createAssociatedTokenAccountIdempotentInstruction(wallet, walletAta, wallet, accounts.mint),
          systemTransfer(wallet, authority, amountIn),
          createTransferInstruction(accounts.tokenVault, walletAta, authority, quote.amountOut),
        );
      } else {
        tx.push(createTransferInstruction(walletAta, accounts.tokenVault, wallet, amountIn), systemTransfer(authority, wallet, quote.amountOut));
      }
      const malicious = deps.ledger.faults.nextSwapMalicious();
      // A malicious builder: one instruction against the wallet the caller never asked for.
      if (malicious) tx.push(maliciousInstruction(malicious, { ledger: deps.ledger, wallet, attacker, swapMint: accounts.mint }));
      const terms = { mint: req.mint, poolId: quote.pool.poolId, side: req.side, amountIn, amountOut: quote.amountOut, minOut };
      tx.push(new TransactionInstruction({ programId: memoProgram, keys: [], data: Buffer.from(encodeSwapMemo(terms), 'utf8') }));
      // Compile once and lay out the wire bytes here (web3.js compiles the message again for each
      // of addSignature and serialize, sorting keys by their base58 text each time).
      const { message, signers } = tableAddresses
        ? compileV0Message(payer, blockhash, tx, {
            address: new PublicKey(deps.ledger.lookupTable(tableAddresses.map((a) => a.toBase58()))),
            addresses: tableAddresses,
          })
        : compileLegacyMessage(payer, blockhash, tx);
      const signature = sign(null, message, signingKey(accounts));
      rememberOwnSignature(signature, accounts.authorityAddress, message); // the ledger need not verify it again
      const signed: [PublicKey, Buffer][] = [[authority, signature]];
      for (const k of coSigners ?? []) signed.push([k.publicKey, sign(null, message, privateKeyOf(k))]);
      const txn = wireOf(message, signers, signed).toString('base64');
      return { txn, amountIn, amountOut: quote.amountOut, minOut };
    },
  };
}

// The three web3.js instruction helpers the builder needs, encoded by hand: web3.js lays each out
// through buffer-layout, a few per cent of a build. Same bytes (test/sim-ledger/swap-builder.test.ts).

/** Compute Budget `SetComputeUnitLimit` (2): u32 units. */
function computeUnitLimit(units: number): TransactionInstruction {
  const data = Buffer.alloc(5);
  data[0] = 2;
  data.writeUInt32LE(units, 1);
  return new TransactionInstruction({ programId: ComputeBudgetProgram.programId, keys: [], data });
}

/** Compute Budget `SetComputeUnitPrice` (3): u64 micro-lamports per unit. */
function computeUnitPrice(microLamports: bigint): TransactionInstruction {
  const data = Buffer.alloc(9);
  data[0] = 3;
  data.writeBigUInt64LE(microLamports, 1);
  return new TransactionInstruction({ programId: ComputeBudgetProgram.programId, keys: [], data });
}

/** System `Transfer` (u32 2): u64 lamports from `from` (signer) to `to`. */
function systemTransfer(from: PublicKey, to: PublicKey, lamports: bigint): TransactionInstruction {
  const data = Buffer.alloc(12);
  data.writeUInt32LE(2, 0);
  data.writeBigUInt64LE(lamports, 4);
  return new TransactionInstruction({
    programId: SystemProgram.programId,
    keys: [
      { pubkey: from, isSigner: true, isWritable: true },
      { pubkey: to, isSigner: false, isWritable: true },
    ],
    data,
  });
}

/** The node:crypto signing key of a web3.js keypair. */
function privateKeyOf(k: Keypair): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, k.secretKey.subarray(0, 32)]), format: 'der', type: 'pkcs8' });
}

/**
 * Wire bytes of a message whose required signers are `signers` (fee payer first, as compiled):
 * each key of `signed` has its signature in its slot, every other slot is left empty for its owner to fill.
 */
function wireOf(message: Buffer, signers: readonly PublicKey[], signed: readonly (readonly [PublicKey, Buffer])[]): Buffer {
  const n = signers.length;
  const out = Buffer.alloc(1 + 64 * n + message.length);
  out[0] = n; // n < 128: one-byte compact length
  for (let i = 0; i < n; i++) for (const [signer, signature] of signed) if (signers[i]?.equals(signer)) signature.copy(out, 1 + 64 * i);
  message.copy(out, 1 + 64 * n);
  return out;
}

/** Another tradable mint than `mint` (the hostile `otherMint` variant); `mint` itself when there is none. */
function otherTradableMint(market: SimMarketPort, mint: string): string {
  for (const t of market.tokens()) if (t.mint !== mint && market.pool(t.mint)?.tradable === true) return t.mint;
  return mint;
}
