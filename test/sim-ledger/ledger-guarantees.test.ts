import {
  ComputeBudgetProgram,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { getBase58Decoder } from '@solana/kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WRAPPED_SOL_MINT } from '../../src/sim/ledger/index.js';
import { startHarness, type Harness } from './harness.js';

const SOL = WRAPPED_SOL_MINT;
const base58 = getBase58Decoder();

describe('the ledger behind JSON-RPC', () => {
  let h: Harness;
  let mint: string;
  beforeEach(async () => {
    h = await startHarness({ statusCacheSlots: 20 });
    mint = h.market.launch(30n * BigInt(LAMPORTS_PER_SOL), 1_000_000_000_000_000n, 6);
  });
  afterEach(async () => {
    await h.stop();
  });

  const sendRaw = (bytes: Uint8Array | Buffer, config: Record<string, unknown> = {}) =>
    h.rpc('sendTransaction', [Buffer.from(bytes).toString('base64'), { encoding: 'base64', ...config }]);

  it('executes identical bytes once, however often and however late they are sent again', async () => {
    const wallet = await h.wallet(5);
    const tx = await h.buildSigned(wallet, { from: SOL, to: mint, amount: 1, slippage: 50, priorityFee: 0 });
    const bytes = tx.serialize();
    const first = await sendRaw(bytes, { skipPreflight: true });
    const afterFirst = await h.connection.getBalance(wallet.publicKey);
    h.slots(3);
    const again = await sendRaw(bytes, { skipPreflight: true });
    expect(again.json['result']).toBe(first.json['result']);
    const withPreflight = await sendRaw(bytes);
    expect(withPreflight.status).toBe(200);
    expect(withPreflight.json['error']).toMatchObject({ code: -32002, data: { err: 'AlreadyProcessed' } });
    h.slots(100); // well past LiteSVM's own short replay memory; the blockhash is still valid
    await sendRaw(bytes, { skipPreflight: true });
    expect(await h.connection.getBalance(wallet.publicKey)).toBe(afterFirst);
    expect(h.market.landed).toHaveLength(1);
  });

  it('issues blockhashes valid for 150 blocks and refuses a transaction whose blockhash expired', async () => {
    const wallet = await h.wallet(5);
    const { blockhash, lastValidBlockHeight } = await h.connection.getLatestBlockhash();
    expect(lastValidBlockHeight).toBe((await h.connection.getBlockHeight()) + 150);
    const tx = await h.buildSigned(wallet, { from: SOL, to: mint, amount: 1, slippage: 50, priorityFee: 0 });
    expect(tx.recentBlockhash).toBe(blockhash);
    h.slots(150);
    expect((await h.connection.isBlockhashValid(blockhash)).value).toBe(true);
    h.slots(1);
    expect((await h.connection.isBlockhashValid(blockhash)).value).toBe(false);
    for (const skipPreflight of [false, true]) {
      const r = await sendRaw(tx.serialize(), { skipPreflight });
      expect(r.json['error']).toMatchObject({ code: -32002, data: { err: 'BlockhashNotFound' } });
    }
    expect(await h.status(base58.decode(tx.signature!))).toBeNull();
    expect(h.market.landed).toHaveLength(0);
  });

  it('refuses a transaction with a bad or missing signature with -32003', async () => {
    const wallet = await h.wallet(5);
    const { json } = await h.swap({ wallet: wallet.publicKey.toBase58(), from: SOL, to: mint, amount: 1, slippage: 1, priorityFee: 0 });
    const unsigned = Buffer.from(json['txn'] as string, 'base64');
    expect((await sendRaw(unsigned, { skipPreflight: true })).json['error']).toMatchObject({ code: -32003 });
    const tx = Transaction.from(unsigned);
    tx.partialSign(wallet);
    const bytes = tx.serialize();
    bytes[1 + 10] = (bytes[1 + 10] ?? 0) ^ 0xff; // flip a byte of the wallet's signature
    expect((await sendRaw(bytes, { skipPreflight: true })).json['error']).toMatchObject({ code: -32003 });
    expect(h.market.landed).toHaveLength(0);
  });

  it('fails a swap at landing when the pool moved beyond the slippage bound, and the fee is still paid', async () => {
    const wallet = await h.wallet(5);
    const tx = await h.buildSigned(wallet, { from: SOL, to: mint, amount: 1, slippage: 1, priorityFee: 0.00005 });
    h.market.move(mint, 'buy', 3n * BigInt(LAMPORTS_PER_SOL)); // another trader buys first
    const preflight = await sendRaw(tx.serialize());
    expect(preflight.json['error']).toMatchObject({ code: -32002, data: { err: { InstructionError: [expect.any(Number), { Custom: 6001 }] } } });
    expect((preflight.json['error'] as { message: string }).message).toMatch(
      /^Transaction simulation failed: Error processing Instruction \d: custom program error: 0x1771$/,
    );

    const before = BigInt(await h.connection.getBalance(wallet.publicKey));
    const sent = await sendRaw(tx.serialize(), { skipPreflight: true });
    const sig = sent.json['result'] as string;
    const st = await h.status(sig);
    expect(st?.err).toMatchObject({ InstructionError: [expect.any(Number), { Custom: 6001 }] });
    expect(BigInt(await h.connection.getBalance(wallet.publicKey))).toBe(before - 10_000n - 50_000n);
    expect(await h.connection.getTokenAccountsByOwner(wallet.publicKey, { mint: new PublicKey(mint) })).toMatchObject({ value: [] });
    expect(h.market.landed).toHaveLength(0);
  });

  it('fails a swap at landing when its token graduated to another pool after it was built', async () => {
    const wallet = await h.wallet(5);
    const tx = await h.buildSigned(wallet, { from: SOL, to: mint, amount: 1, slippage: 50, priorityFee: 0 });
    h.market.graduate(mint);
    const sig = (await sendRaw(tx.serialize(), { skipPreflight: true })).json['result'] as string;
    expect((await h.status(sig))?.err).toMatchObject({ InstructionError: [expect.any(Number), { Custom: 6003 }] });
    expect(h.market.landed).toHaveLength(0);
  });

  it('lands a swap when the pool moved but stays within the slippage bound', async () => {
    const wallet = await h.wallet(5);
    const tx = await h.buildSigned(wallet, { from: SOL, to: mint, amount: 1, slippage: 20, priorityFee: 0 });
    h.market.move(mint, 'buy', 1n * BigInt(LAMPORTS_PER_SOL));
    const sig = await h.connection.sendRawTransaction(tx.serialize());
    expect((await h.status(sig))?.err).toBeNull();
    expect(h.market.landed).toHaveLength(1);
  });

  it('lands a transaction whose instruction fails as failed, charging the fee', async () => {
    const wallet = await h.wallet(1);
    const { blockhash } = await h.connection.getLatestBlockhash();
    const tx = new Transaction({ feePayer: wallet.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 5n * BigInt(LAMPORTS_PER_SOL) }),
    );
    tx.sign(wallet);
    const preflight = await sendRaw(tx.serialize());
    expect(preflight.json['error']).toMatchObject({ code: -32002 });
    const sig = (await sendRaw(tx.serialize(), { skipPreflight: true })).json['result'] as string;
    expect((await h.status(sig))?.err).toMatchObject({ InstructionError: [0, { Custom: 1 }] });
    expect(await h.connection.getBalance(wallet.publicKey)).toBe(LAMPORTS_PER_SOL - 5_000);
    h.slots(1);
    const got = await h.connection.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(got?.meta?.fee).toBe(5_000);
    expect(got!.meta!.preBalances[0]! - got!.meta!.postBalances[0]!).toBe(5_000);
  });

  it('forgets a status for queries without history search after the status cache, but never with it', async () => {
    const wallet = await h.wallet(5);
    const tx = await h.buildSigned(wallet, { from: SOL, to: mint, amount: 1, slippage: 5, priorityFee: 0 });
    const sig = await h.connection.sendRawTransaction(tx.serialize());
    h.slots(21);
    expect((await h.connection.getSignatureStatuses([sig])).value[0]).toBeNull();
    expect((await h.connection.getSignatureStatuses([sig], { searchTransactionHistory: true })).value[0]).toMatchObject({
      err: null,
      confirmationStatus: 'confirmed',
      confirmations: 21,
    });
  });

  it('refuses a transaction whose fee payer cannot pay the fee, and it never lands', async () => {
    const poor = Keypair.generate();
    const { blockhash } = await h.connection.getLatestBlockhash();
    const tx = new Transaction({ feePayer: poor.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: poor.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 }),
    );
    tx.sign(poor);
    const r = await sendRaw(tx.serialize(), { skipPreflight: true });
    expect(r.json['error']).toMatchObject({ code: -32002, data: { err: 'InsufficientFundsForFee' } });
  });

  it('lands a version 0 transaction and serves it only to clients that accept version 0', async () => {
    const wallet = await h.wallet(1);
    const { blockhash } = await h.connection.getLatestBlockhash();
    const to = Keypair.generate().publicKey;
    const message = new TransactionMessage({
      payerKey: wallet.publicKey,
      recentBlockhash: blockhash,
      instructions: [
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 5_000_000 }),
        SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: to, lamports: 1_000_000 }),
      ],
    }).compileToV0Message();
    const fee = await h.connection.getFeeForMessage(message);
    // 5,000 per signature + 5e6 micro-lamports × 6,000 default CU (two builtin instructions × 3,000) / 1e6
    expect(fee.value).toBe(5_000 + 30_000);
    const tx = new VersionedTransaction(message);
    tx.sign([wallet]);
    const sig = await h.connection.sendTransaction(tx);
    expect(await h.connection.getBalance(to)).toBe(1_000_000);
    expect(await h.connection.getBalance(wallet.publicKey)).toBe(LAMPORTS_PER_SOL - 1_000_000 - fee.value!);
    h.slots(1);
    const legacyOnly = await h.rpc('getTransaction', [sig, { commitment: 'confirmed' }]);
    expect(legacyOnly.json['error']).toMatchObject({ code: -32015 });
    const got = await h.connection.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(got?.version).toBe(0);
    expect(got?.meta?.fee).toBe(fee.value);
  });
});
