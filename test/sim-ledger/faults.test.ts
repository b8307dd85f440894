import { LAMPORTS_PER_SOL, PublicKey, SystemInstruction, SystemProgram, Transaction } from '@solana/web3.js';
import { getBase58Decoder } from '@solana/kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WRAPPED_SOL_MINT } from '../../src/sim/ledger/index.js';
import { startHarness, type Harness } from './harness.js';

const SOL = WRAPPED_SOL_MINT;

describe('faults injected on demand', () => {
  let h: Harness;
  let mint: string;
  beforeEach(async () => {
    h = await startHarness();
    mint = h.market.launch(30n * BigInt(LAMPORTS_PER_SOL), 1_000_000_000_000_000n, 6);
  });
  afterEach(async () => {
    await h.stop();
  });

  const buySigned = async (sol = 1) => {
    const wallet = await h.wallet(5);
    const tx = await h.buildSigned(wallet, { from: SOL, to: mint, amount: sol, slippage: 50, priorityFee: 0 });
    return { wallet, tx };
  };

  it('drops an accepted transaction: it never lands, re-sends do not land it, and after expiry a history search does not know it', async () => {
    const { wallet, tx } = await buySigned();
    h.ledger.faults.inject({ kind: 'drop' });
    const { lastValidBlockHeight } = await h.connection.getLatestBlockhash();
    const sig = await h.connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    h.slots(5);
    expect(await h.connection.sendRawTransaction(tx.serialize(), { skipPreflight: true })).toBe(sig);
    h.slots(150);
    expect(await h.connection.getBlockHeight()).toBeGreaterThan(lastValidBlockHeight);
    expect(await h.status(sig)).toBeNull();
    expect(await h.connection.getBalance(wallet.publicKey)).toBe(5 * LAMPORTS_PER_SOL);
    expect(h.market.landed).toHaveLength(0);
  });

  it('delays landing by N slots: unknown until then, landed after', async () => {
    const { tx } = await buySigned();
    h.ledger.faults.inject({ kind: 'delay', slots: 4 });
    const sig = await h.connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    h.slots(3);
    expect(await h.status(sig)).toBeNull();
    h.slots(1);
    expect(await h.status(sig)).toMatchObject({ err: null, confirmationStatus: 'processed' });
    expect(h.market.landed).toHaveLength(1);
  });

  it('drops a delayed transaction whose blockhash expires before its landing slot', async () => {
    const { wallet, tx } = await buySigned();
    h.ledger.faults.inject({ kind: 'delay', slots: 200 });
    const sig = await h.connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    h.slots(210);
    expect(await h.status(sig)).toBeNull();
    expect(await h.connection.getBalance(wallet.publicKey)).toBe(5 * LAMPORTS_PER_SOL);
  });

  it('lands late, in the last block the blockhash allows, after a client that gave up early stopped looking', async () => {
    const { tx } = await buySigned();
    h.ledger.faults.inject({ kind: 'late' });
    const { lastValidBlockHeight } = await h.connection.getLatestBlockhash();
    const sig = await h.connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    h.slots(100);
    expect(await h.status(sig)).toBeNull();
    const height = await h.connection.getBlockHeight();
    h.slots(lastValidBlockHeight - height);
    const st = await h.status(sig);
    expect(st).toMatchObject({ err: null });
    expect(await h.connection.getBlockHeight()).toBe(lastValidBlockHeight);
  });

  it('fails on chain on demand: the status carries the error and the fee is paid', async () => {
    const { wallet, tx } = await buySigned();
    h.ledger.faults.inject({ kind: 'fail' });
    const sig = await h.connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    expect((await h.status(sig))?.err).toMatchObject({ InstructionError: [expect.any(Number), { Custom: 6002 }] });
    expect(await h.connection.getBalance(wallet.publicKey)).toBe(5 * LAMPORTS_PER_SOL - 10_000);
    expect(h.market.landed).toHaveLength(0);
  });

  it('reports finalized straight away when the status jumps', async () => {
    const { tx } = await buySigned();
    h.ledger.faults.inject({ kind: 'finalizeAtOnce' });
    const sig = await h.connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    expect(await h.status(sig)).toMatchObject({ confirmationStatus: 'finalized', confirmations: null });
  });

  it('answers with an error inside HTTP 200, and after handling a send the transaction has landed anyway', async () => {
    h.ledger.faults.inject({ kind: 'rpc', rpc: { kind: 'error', method: 'getBalance' } });
    const r = await h.rpc('getBalance', [PublicKey.default.toBase58()]);
    expect(r.status).toBe(200);
    expect(r.json['error']).toMatchObject({ code: -32603 });
    expect((await h.rpc('getBalance', [PublicKey.default.toBase58()])).json['result']).toBeDefined();

    const { tx } = await buySigned();
    h.ledger.faults.inject({ kind: 'rpc', rpc: { kind: 'error', method: 'sendTransaction', afterHandling: true } });
    const sent = await h.rpc('sendTransaction', [tx.serialize().toString('base64'), { encoding: 'base64' }]);
    expect(sent.json['error']).toBeDefined();
    expect(await h.status(bs58Sig(tx))).toMatchObject({ err: null });
  });

  it('holds a request until the client times out; a timed-out send may still have landed', async () => {
    const { tx } = await buySigned();
    h.ledger.faults.inject({ kind: 'rpc', rpc: { kind: 'timeout', method: 'sendTransaction', afterHandling: true } });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [tx.serialize().toString('base64'), { encoding: 'base64' }] });
    await expect(
      fetch(h.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(300) }),
    ).rejects.toThrow();
    expect(await h.status(bs58Sig(tx))).toMatchObject({ err: null });
    expect(h.market.landed).toHaveLength(1);
  });

  it('builds, on demand, a swap with an extra transfer out of the wallet that simulation exposes', async () => {
    const wallet = await h.wallet(5);
    h.ledger.faults.inject({ kind: 'maliciousSwap' });
    const { json } = await h.swap({ wallet: wallet.publicKey.toBase58(), from: SOL, to: mint, amount: 1, slippage: 5, priorityFee: 0 });
    const tx = Transaction.from(Buffer.from(json['txn'] as string, 'base64'));
    const transfersOut = tx.instructions
      .filter((ix) => ix.programId.equals(SystemProgram.programId))
      .map((ix) => SystemInstruction.decodeTransfer(ix))
      .filter((t) => t.fromPubkey.equals(wallet.publicKey));
    expect(transfersOut).toHaveLength(2);
    expect(transfersOut.map((t) => t.lamports).sort()).toEqual([10_000_000n, 1_000_000_000n].sort());

    const sim = await h.rpc('simulateTransaction', [
      json['txn'],
      { encoding: 'base64', sigVerify: false, accounts: { addresses: [wallet.publicKey.toBase58()], encoding: 'base64' } },
    ]);
    const value = (sim.json['result'] as { value: { err: unknown; accounts: { lamports: number }[] } }).value;
    expect(value.err).toBeNull();
    const rent = await h.connection.getMinimumBalanceForRentExemption(165);
    expect(5 * LAMPORTS_PER_SOL - value.accounts[0]!.lamports).toBeGreaterThanOrEqual(1_000_000_000 + 10_000_000 + rent);

    // The next build is honest again.
    const honest = await h.swap({ wallet: wallet.publicKey.toBase58(), from: SOL, to: mint, amount: 1, slippage: 5, priorityFee: 0 });
    const honestTx = Transaction.from(Buffer.from(honest.json['txn'] as string, 'base64'));
    expect(honestTx.instructions.filter((ix) => ix.programId.equals(SystemProgram.programId))).toHaveLength(1);
  });
});

describe('fault rates configured on the services', () => {
  it('apply to every transaction at the configured rate, drawn from the seed', async () => {
    const h = await startHarness({ faults: { failRate: 1 } });
    try {
      const mint = h.market.launch(30n * BigInt(LAMPORTS_PER_SOL), 1_000_000_000_000_000n, 6);
      const wallet = await h.wallet(5);
      for (const amount of [0.1, 0.2]) {
        const tx = await h.buildSigned(wallet, { from: SOL, to: mint, amount, slippage: 5, priorityFee: 0 });
        const sig = await h.connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
        expect((await h.status(sig))?.err).toMatchObject({ InstructionError: [expect.any(Number), { Custom: 6002 }] });
      }
      expect(h.market.landed).toHaveLength(0);
    } finally {
      await h.stop();
    }
  });
});

function bs58Sig(tx: Transaction): string {
  return getBase58Decoder().decode(tx.signature!);
}
