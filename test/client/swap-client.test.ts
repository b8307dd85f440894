import { Keypair, MessageV0, PublicKey, SystemProgram, Transaction, VersionedTransaction } from '@solana/web3.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createSwapClient, WRAPPED_SOL_MINT, type SwapClient, type SwapRequest } from '../../src/client/swap/index.js';
import { sendJson, startServer, type Handler, type TestServer } from './helpers/test-server.js';
import { caught } from './helpers/caught.js';

let server: TestServer | undefined;
let swap: SwapClient | undefined;
afterEach(async () => {
  await swap?.close();
  await server?.close();
  swap = undefined;
  server = undefined;
});

const wallet = Keypair.fromSeed(new Uint8Array(32).fill(1));
const service = Keypair.fromSeed(new Uint8Array(32).fill(2));
const mint = Keypair.fromSeed(new Uint8Array(32).fill(3)).publicKey.toBase58();
const blockhash = new PublicKey(new Uint8Array(32).fill(9)).toBase58();
const transfer = SystemProgram.transfer({ fromPubkey: service.publicKey, toPubkey: wallet.publicKey, lamports: 5000 });

function versionedTx(): VersionedTransaction {
  const msg = MessageV0.compile({ payerKey: wallet.publicKey, recentBlockhash: blockhash, instructions: [transfer] });
  const tx = new VersionedTransaction(msg);
  tx.sign([service]); // the service's partial signature; the wallet's slot stays empty
  return tx;
}

const req: SwapRequest = {
  wallet: wallet.publicKey.toBase58(),
  from: WRAPPED_SOL_MINT,
  to: mint,
  amount: '0.000000001',
  slippagePct: 1.5,
  priorityFeeSol: '0.0001',
};

async function setup(handler: Handler, apiKey?: string) {
  server = await startServer(handler);
  swap = createSwapClient({ url: server.url, timeoutMs: 1000, ...(apiKey ? { apiKey } : {}) });
  return { server, swap };
}

describe('swap client', () => {
  it('posts the documented body with exact number literals and no key header when none is configured', async () => {
    const tx = versionedTx();
    const { server, swap } = await setup((_r, res) => sendJson(res, 200, { txn: Buffer.from(tx.serialize()).toString('base64'), route: 'curve' }));
    const built = await swap.buildSwap({ ...req, amount: '123456789.123456789123', priorityFeeSol: '0.00000001' });
    const sent = server.requests[0];
    expect(sent?.method).toBe('POST');
    expect(sent?.path).toBe('/swap');
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(sent?.headers['x-api-key']).toBeUndefined();
    expect(sent?.body).toBe(
      `{"wallet":"${req.wallet}","from":"${WRAPPED_SOL_MINT}","to":"${mint}","amount":123456789.123456789123,"slippage":1.5,"priorityFee":0.00000001}`,
    );
    expect(built.requestText).toBe(sent?.body);
    expect(built.body['route']).toBe('curve');
  });

  it('decodes a versioned transaction keeping the service signature, ready for the wallet to sign', async () => {
    const tx = versionedTx();
    const bytes = tx.serialize();
    const { swap } = await setup((_r, res) => sendJson(res, 200, { txn: Buffer.from(bytes).toString('base64') }));
    const built = await swap.buildSwap(req);
    expect(built.transaction).toBeInstanceOf(VersionedTransaction);
    const decoded = built.transaction as VersionedTransaction;
    expect(Buffer.from(built.raw).equals(Buffer.from(bytes))).toBe(true);
    expect(decoded.message.staticAccountKeys[0]?.toBase58()).toBe(wallet.publicKey.toBase58());
    expect(Buffer.from(decoded.signatures[1]!).equals(Buffer.from(tx.signatures[1]!))).toBe(true);
    expect(decoded.signatures[0]!.every((b) => b === 0)).toBe(true);
    decoded.sign([wallet]);
    expect(decoded.signatures[0]!.some((b) => b !== 0)).toBe(true);
    expect(Buffer.from(decoded.signatures[1]!).equals(Buffer.from(tx.signatures[1]!))).toBe(true);
  });

  it('decodes a legacy transaction with its partial signature', async () => {
    const legacy = new Transaction({ feePayer: wallet.publicKey, recentBlockhash: blockhash }).add(transfer);
    legacy.partialSign(service);
    const bytes = legacy.serialize({ requireAllSignatures: false });
    const { swap } = await setup((_r, res) => sendJson(res, 200, { txn: bytes.toString('base64') }));
    const built = await swap.buildSwap(req);
    expect(Buffer.from(built.raw).equals(bytes)).toBe(true);
    const sigs =
      built.transaction instanceof VersionedTransaction
        ? built.transaction.signatures
        : built.transaction.signatures.map((s) => s.signature ?? new Uint8Array(64));
    expect(sigs.some((s) => Buffer.from(s).equals(legacy.signatures[1]!.signature!))).toBe(true);
  });

  it('sends the swap once: a 500 is an unknown outcome and a 400 keeps the service message', async () => {
    const { server, swap } = await setup((_r, res, i) =>
      i === 0
        ? sendJson(res, 500, { error: { code: 'SERVER_ERROR', message: 'Internal server error' } })
        : sendJson(res, 400, { error: { code: 'BAD_AMOUNT', message: 'amount too small' } }),
    );
    const e1 = await caught(swap.buildSwap(req));
    expect(e1.code).toBe('HTTP_SERVER_ERROR');
    expect(e1.retry).toBe('unknown_outcome');
    const e2 = await caught(swap.buildSwap(req));
    expect(e2.code).toBe('HTTP_CLIENT_ERROR');
    expect(e2.context['apiMessage']).toBe('amount too small');
    expect(server.requests).toHaveLength(2);
  });

  it('rejects a response without txn, with bad base64, or with bytes that are no transaction', async () => {
    const bodies = [{ ok: true }, { txn: 'not base64!' }, { txn: Buffer.from('hello world, not a tx').toString('base64') }];
    const { swap } = await setup((_r, res, i) => sendJson(res, 200, bodies[i]));
    for (const _ of bodies) expect((await caught(swap.buildSwap(req))).code).toBe('SWAP_INVALID_TRANSACTION');
  });

  it('refuses invalid requests before sending anything, naming the field', async () => {
    const { server, swap } = await setup((_r, res) => sendJson(res, 200, {}));
    const bad: [Partial<SwapRequest>, string][] = [
      [{ amount: '1e-9' }, 'amount'],
      [{ amount: '0' }, 'amount'],
      [{ amount: '-1' }, 'amount'],
      [{ priorityFeeSol: 'NaN' }, 'priorityFeeSol'],
      [{ slippagePct: 0 }, 'slippagePct'],
      [{ slippagePct: 101 }, 'slippagePct'],
      [{ slippagePct: Number.NaN }, 'slippagePct'],
      [{ wallet: 'short' }, 'wallet'],
      [{ to: WRAPPED_SOL_MINT }, 'to'],
    ];
    for (const [patch, field] of bad) {
      const e = await caught(swap.buildSwap({ ...req, ...patch }));
      expect(e.code).toBe('SWAP_INVALID_REQUEST');
      expect(e.context['field']).toBe(field);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('sends a configured key in the x-api-key header', async () => {
    const { server, swap } = await setup((_r, res) => sendJson(res, 200, { txn: Buffer.from(versionedTx().serialize()).toString('base64') }), 'swap-key-abc');
    await swap.buildSwap({ ...req, priorityFeeSol: '0' });
    expect(server.requests[0]?.headers['x-api-key']).toBe('swap-key-abc');
    expect(server.requests[0]?.body).toContain('"priorityFee":0}');
  });
});
