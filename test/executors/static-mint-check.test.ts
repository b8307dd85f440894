/**
 * Static mode proves a buy's output arrives from a fixed transfer; it must also prove the tokens
 * stay ours once the transaction ends (issue 38, case 2). It reads the intent's mint and refuses a
 * freeze authority, the Token-2022 extensions that can take, lock or hide tokens we hold, and any
 * extension it does not know; a plain mint and the harmless extensions still pass. The mint bytes
 * are laid out as the token programs store them; only the RPC read is a fake (a narrow port).
 */
import { Keypair, SystemProgram, Transaction, type PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import {
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedWithFeeInstruction,
  createTransferInstruction,
  getAssociatedTokenAddressSync,
} from '../../src/client/spl-token.js';
import type { OrderIntent } from '../../src/engine/orders/execution-port.js';
import { inspectedBuy } from '../helpers/intents.js';
import { BASE_ALLOWED_PROGRAMS, inspectSwap } from '../../src/executors/live/inspect.js';
import type { LiveRpcPort, RpcAccount } from '../../src/executors/live/ports.js';

const key = (n: number): PublicKey => Keypair.fromSeed(new Uint8Array(32).fill(n)).publicKey;
const wallet = key(1);
const pool = Keypair.fromSeed(new Uint8Array(32).fill(2));
const authority = pool.publicKey;
const attacker = key(5);
const OUT = 990_000n;

/** A mint account: 82 bytes (classic), or Token-2022 with `extensions` ([type, value]) after the account-type byte. */
function mintAccount(o: { freeze?: PublicKey; program?: 'classic' | '2022'; extensions?: [number, Buffer][] }): RpcAccount {
  const base = Buffer.alloc(82);
  base.writeUInt32LE(1, 0); // a mint authority
  key(7).toBuffer().copy(base, 4);
  base[44] = 6; // decimals
  base[45] = 1; // initialised
  if (o.freeze) {
    base.writeUInt32LE(1, 46);
    o.freeze.toBuffer().copy(base, 50);
  }
  let data = base;
  if (o.extensions) {
    const tlv = o.extensions.map(([type, value]) => {
      const head = Buffer.alloc(4);
      head.writeUInt16LE(type, 0);
      head.writeUInt16LE(value.length, 2);
      return Buffer.concat([head, value]);
    });
    data = Buffer.concat([base, Buffer.alloc(165 - 82), Buffer.from([1]), ...tlv]);
  }
  const owner = o.program === '2022' || o.extensions ? TOKEN_2022_PROGRAM_ID : TOKEN_PROGRAM_ID;
  return { lamports: 1_461_600n, owner: owner.toBase58(), data: [data.toString('base64'), 'base64'], executable: false };
}

/** A fixed-transfer buy of `mint` (the simulator's swap shape) under the mint's own token program. */
function buyOf(mint: PublicKey, program: PublicKey) {
  const ours = getAssociatedTokenAddressSync(mint, wallet, true, program);
  const vault = getAssociatedTokenAddressSync(mint, authority, true, program);
  const payIn = program.equals(TOKEN_PROGRAM_ID)
    ? createTransferInstruction(vault, ours, authority, OUT)
    : createTransferCheckedWithFeeInstruction(vault, mint, ours, authority, OUT, 6, 0n);
  const tx = new Transaction({ feePayer: wallet, recentBlockhash: key(9).toBase58() }).add(
    createAssociatedTokenAccountIdempotentInstruction(wallet, ours, wallet, mint, program),
    SystemProgram.transfer({ fromPubkey: wallet, toPubkey: authority, lamports: 1_000_000n }),
    payIn,
  );
  tx.partialSign(pool); // the pool authority co-signs, as the simulator's swap service does
  const raw = tx.serialize({ requireAllSignatures: false, verifySignatures: false });
  return { transaction: tx, raw, base64: raw.toString('base64') };
}

const intentOf = (mint: PublicKey): OrderIntent => inspectedBuy(mint.toBase58());

/** Answers the mint read only; static mode must never simulate. */
const rpcOf = (mint: PublicKey, account: RpcAccount): Pick<LiveRpcPort, 'simulateTransaction' | 'getMultipleAccounts'> => ({
  getMultipleAccounts: async (addresses) => ({ context: { slot: 7 }, value: addresses.map((a) => (a === mint.toBase58() ? account : null)) }),
  simulateTransaction: () => Promise.reject(new Error('static mode simulated')),
});

const policy = { allowedPrograms: new Set(BASE_ALLOWED_PROGRAMS), rentBudgetLamports: 2_039_280n, mode: 'static' as const };
const pubkey = (k: PublicKey): Buffer => k.toBuffer();
const zero = (n: number): Buffer => Buffer.alloc(n);

let next = 20; // a fresh mint per case: a mint that passed is cached
const check = async (account: RpcAccount) => {
  const mint = key(next++);
  const program = account.owner === TOKEN_2022_PROGRAM_ID.toBase58() ? TOKEN_2022_PROGRAM_ID : TOKEN_PROGRAM_ID;
  return inspectSwap(buyOf(mint, program), intentOf(mint), wallet, rpcOf(mint, account), policy);
};

describe('static inspection proves a buy output stays ours (the mint)', () => {
  it.each<[string, RpcAccount, RegExp]>([
    ['a freeze authority on a classic mint', mintAccount({ freeze: attacker }), /has a freeze authority \(\w+\): our account could be frozen/],
    ['a permanent delegate', mintAccount({ extensions: [[12, pubkey(attacker)]] }), /Token-2022 extension PermanentDelegate/],
    ['a transfer hook', mintAccount({ extensions: [[14, Buffer.concat([pubkey(attacker), pubkey(key(8))])]] }), /Token-2022 extension TransferHook/],
    ['confidential transfers', mintAccount({ extensions: [[4, Buffer.concat([pubkey(attacker), Buffer.from([1]), zero(32)])]] }), /ConfidentialTransferMint/],
    ['default-frozen accounts', mintAccount({ freeze: attacker, extensions: [[6, Buffer.from([2])]] }), /has a freeze authority/],
    ['a default account state without the freeze authority read first', mintAccount({ extensions: [[6, Buffer.from([2])]] }), /DefaultAccountState/],
    ['an extension it does not know', mintAccount({ extensions: [[99, zero(8)]] }), /extension type 99, which static inspection does not know/],
    ['a pausable mint', mintAccount({ extensions: [[26, zero(33)]] }), /Pausable/],
  ])('refuses %s', async (_what, account, reason) => {
    const r = await check(account);
    expect(r).toMatchObject({ ok: false, code: 'LIVE_INSPECTION_OUTPUT' });
    if (r.ok) return;
    expect(r.reason).toMatch(/^static inspection cannot prove the output stays ours: mint \w+ /);
    expect(r.reason).toMatch(reason);
  });

  it.each<[string, RpcAccount]>([
    ['a classic mint without freeze authority', mintAccount({})],
    ['a Token-2022 mint without extensions', mintAccount({ program: '2022' })],
    [
      'a Token-2022 mint with transfer fee config, metadata pointer and an unset permanent delegate',
      mintAccount({
        extensions: [
          [1, zero(108)],
          [18, zero(64)],
          [12, zero(32)],
        ],
      }),
    ],
  ])('passes %s', async (_what, account) => {
    expect(await check(account)).toMatchObject({ ok: true, provenOut: OUT });
  });

  it('refuses when the mint cannot be read, naming it', async () => {
    const mint = key(90);
    const r = await inspectSwap(
      buyOf(mint, TOKEN_PROGRAM_ID),
      intentOf(mint),
      wallet,
      { ...rpcOf(mint, mintAccount({})), getMultipleAccounts: () => Promise.reject(new Error('rpc down')) },
      policy,
    );
    expect(r).toMatchObject({ ok: false, code: 'LIVE_INSPECTION_OUTPUT' });
    if (!r.ok) expect(r.reason).toMatch(/could not read mint \w+ to prove the output stays ours \(rpc down\)/);
  });
});
