import { afterEach, describe, expect, it } from 'vitest';
import { atLeast, commitmentRank, createRpcClient, type RpcClient } from '../../src/client/rpc/index.js';
import { seededRandom } from '../../src/core/index.js';
import { startRpcServer, type RpcHandler, type RpcServer } from './helpers/rpc-server.js';
import { jumpClock, sendJson } from './helpers/test-server.js';
import { caught } from './helpers/caught.js';

let server: RpcServer | undefined;
let rpc: RpcClient | undefined;
afterEach(async () => {
  await rpc?.close();
  await server?.close();
  rpc = undefined;
  server = undefined;
});

async function setup(methods: Record<string, RpcHandler>, timeoutMs = 2000) {
  server = await startRpcServer(methods);
  rpc = createRpcClient({ url: server.url, apiKey: 'rpc-secret-key', timeoutMs, clock: jumpClock(), random: seededRandom(3), retry: { maxAttempts: 3 } });
  return { server, rpc };
}

const account = (lamports: number | string) => ({
  lamports,
  owner: '11111111111111111111111111111111',
  data: ['AQID', 'base64'],
  executable: false,
  rentEpoch: 18446744073709552000,
  space: 3,
});

describe('JSON-RPC client', () => {
  it('sends JSON-RPC 2.0 with the key as api_key and reads balances beyond 2^53 exactly', async () => {
    const { server, rpc } = await setup({
      getBalance: (_p, call, res) => {
        const text = `{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},"result":{"context":{"slot":77},"value":123456789012345678901}}`;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(text);
        return { raw: true };
      },
    });
    const bal = await rpc.getBalance('Wallet111', { commitment: 'confirmed' });
    expect(bal).toEqual({ context: { slot: 77 }, value: 123456789012345678901n });
    expect(server.requests[0]?.query.get('api_key')).toBe('rpc-secret-key');
    expect(JSON.parse(server.requests[0]?.body ?? '')).toMatchObject({
      jsonrpc: '2.0',
      method: 'getBalance',
      params: ['Wallet111', { commitment: 'confirmed' }],
    });
  });

  it('throws RPC_ERROR with the rpc code and message for an error inside HTTP 200, without retrying', async () => {
    const { server, rpc } = await setup({
      sendTransaction: () => ({ error: { code: -32002, message: 'Transaction simulation failed: Blockhash not found', data: { logs: [] } } }),
      getSlot: () => ({ error: { code: -32005, message: 'Node is behind' } }),
    });
    const e = await caught(rpc.sendTransaction('AQAB', { skipPreflight: false, maxRetries: 0, preflightCommitment: 'processed' }));
    expect(e.code).toBe('RPC_ERROR');
    expect(e.retry).toBe('not_retryable');
    expect(e.context).toMatchObject({ method: 'sendTransaction', rpcCode: -32002, rpcMessage: 'Transaction simulation failed: Blockhash not found' });
    expect(server.calls[0]?.params).toEqual(['AQAB', { encoding: 'base64', skipPreflight: false, maxRetries: 0, preflightCommitment: 'processed' }]);
    const slow = await caught(rpc.getSlot());
    expect(slow.retry).toBe('retryable');
    expect(server.calls).toHaveLength(2);
  });

  it('classifies a transient node error on sendTransaction as unknown_outcome, not retryable', async () => {
    const { server, rpc } = await setup({ sendTransaction: () => ({ error: { code: -32005, message: 'Node is unhealthy' } }) });
    const e = await caught(rpc.sendTransaction('AQAB'));
    expect(e.code).toBe('RPC_ERROR');
    expect(e.retry).toBe('unknown_outcome');
    expect(server.calls).toHaveLength(1);
  });

  it('reports a sendTransaction timeout or 5xx as unknown_outcome after exactly one send', async () => {
    let n = 0;
    const { server, rpc } = await setup(
      {
        sendTransaction: (_p, _c, res) => {
          if (n++ === 0) return undefined; // hang
          sendJson(res, 503, { error: { code: 503, message: 'busy' } });
          return { raw: true };
        },
      },
      300,
    );
    const timeout = await caught(rpc.sendTransaction('AQAB'));
    expect(timeout.code).toBe('HTTP_TIMEOUT');
    expect(timeout.retry).toBe('unknown_outcome');
    const busy = await caught(rpc.sendTransaction('AQAB'));
    expect(busy.code).toBe('HTTP_SERVER_ERROR');
    expect(busy.retry).toBe('unknown_outcome');
    expect(server.calls).toHaveLength(2);
  });

  it('treats a garbled answer or a caller abort on sendTransaction as unknown_outcome', async () => {
    let n = 0;
    const ac = new AbortController();
    const { server, rpc } = await setup({
      sendTransaction: (_p, _c, res) => {
        n++;
        if (n === 1) {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<html>ok</html>');
          return { raw: true };
        }
        if (n === 2) return { result: 5 };
        ac.abort(); // the write reached the server: the caller gives up while it hangs
        return undefined;
      },
    });
    const html = await caught(rpc.sendTransaction('AQAB'));
    expect([html.code, html.retry]).toEqual(['HTTP_INVALID_BODY', 'unknown_outcome']);
    const shape = await caught(rpc.sendTransaction('AQAB'));
    expect([shape.code, shape.retry]).toEqual(['RPC_INVALID_RESPONSE', 'unknown_outcome']);
    const abortedWrite = await caught(rpc.sendTransaction('AQAB', { signal: ac.signal }));
    expect([abortedWrite.code, abortedWrite.retry]).toEqual(['CORE_ABORTED', 'unknown_outcome']);
    const early = await caught(rpc.sendTransaction('AQAB', { signal: AbortSignal.abort() }));
    expect([early.code, early.retry]).toEqual(['CORE_ABORTED', 'not_retryable']);
    expect(server.calls).toHaveLength(3);
  });

  it('retries reads on 5xx and returns the later result', async () => {
    let n = 0;
    const { server, rpc } = await setup({
      getBlockHeight: (_p, _c, res) => {
        if (n++ < 2) {
          sendJson(res, 502, {});
          return { raw: true };
        }
        return { result: 4242 };
      },
    });
    expect(await rpc.getBlockHeight({ commitment: 'finalized' })).toBe(4242);
    expect(server.calls).toHaveLength(3);
  });

  it('chunks signature status queries by 256, keeps order, and reports the lowest context slot', async () => {
    const { server, rpc } = await setup({
      getSignatureStatuses: (params) => {
        const sigs = params[0] as string[];
        return {
          result: {
            context: { slot: sigs.length === 256 ? 900 : 901 },
            value: sigs.map((s, i) =>
              i % 3 === 0
                ? null
                : { slot: 5, confirmations: null, err: s.endsWith('7') ? { InstructionError: [0, 'Custom'] } : null, confirmationStatus: 'finalized' },
            ),
          },
        };
      },
    });
    const sigs = Array.from({ length: 300 }, (_, i) => `sig${i}`);
    const out = await rpc.getSignatureStatuses(sigs, { searchTransactionHistory: true });
    expect(server.calls.map((c) => (c.params[0] as string[]).length)).toEqual([256, 44]);
    expect(server.calls[0]?.params[1]).toEqual({ searchTransactionHistory: true });
    expect(out.context.slot).toBe(900);
    expect(out.value).toHaveLength(300);
    expect(out.value[0]).toBeNull();
    expect(out.value[257]).toMatchObject({ confirmationStatus: 'finalized', err: { InstructionError: [0, 'Custom'] } });
    expect(out.value[256]).toBeNull();
  });

  it('parses blockhashes, transactions and simulations with lamports as bigint', async () => {
    const { server, rpc } = await setup({
      getLatestBlockhash: () => ({ result: { context: { slot: 10 }, value: { blockhash: 'Hash1', lastValidBlockHeight: 160 } } }),
      isBlockhashValid: () => ({ result: { context: { slot: 11 }, value: false } }),
      getTransaction: () => ({
        result: {
          slot: 12,
          blockTime: 1_700_000_000,
          transaction: ['AQID', 'base64'],
          meta: {
            fee: 5000,
            err: null,
            preBalances: [1_000_000_000, 0],
            postBalances: [999_995_000, 0],
            preTokenBalances: [],
            postTokenBalances: [{ accountIndex: 1, mint: 'M', owner: 'O', uiTokenAmount: { amount: '1500', decimals: 6, uiAmount: 0.0015 } }],
            logMessages: ['x'],
          },
          version: 0,
        },
      }),
      simulateTransaction: () => ({
        result: { context: { slot: 13 }, value: { err: null, logs: ['ok'], accounts: [account(2_000_000), null], unitsConsumed: 1234 } },
      }),
      getAccountInfo: () => ({ result: { context: { slot: 14 }, value: null } }),
    });
    expect(await rpc.getLatestBlockhash()).toEqual({ context: { slot: 10 }, value: { blockhash: 'Hash1', lastValidBlockHeight: 160 } });
    expect((await rpc.isBlockhashValid('Hash1')).value).toBe(false);
    const tx = await rpc.getTransaction('sig');
    expect(tx?.meta?.fee).toBe(5000n);
    expect(tx?.meta?.postBalances).toEqual([999_995_000n, 0n]);
    expect(tx?.meta?.postTokenBalances[0]?.uiTokenAmount.amount).toBe('1500');
    expect((tx as unknown as { version: number }).version).toBe(0);
    expect(server.calls[2]?.params[1]).toEqual({ encoding: 'base64', maxSupportedTransactionVersion: 0 });
    const sim = await rpc.simulateTransaction('AQAB', {
      sigVerify: false,
      replaceRecentBlockhash: true,
      accounts: { addresses: ['A', 'B'], encoding: 'base64' },
    });
    expect(sim.value.accounts?.[0]?.lamports).toBe(2_000_000n);
    expect(sim.value.accounts?.[0]?.rentEpoch).toBe(18446744073709552000);
    expect(sim.value.unitsConsumed).toBe(1234);
    expect((await rpc.getAccountInfo('X')).value).toBeNull();
  });

  it('rejects a result that is not the documented shape, and a reply with neither result nor error', async () => {
    const { rpc } = await setup({
      getBalance: () => ({ result: { context: { slot: 1 }, value: 1.5 } }),
      getSlot: (_p, call, res) => {
        sendJson(res, 200, { jsonrpc: '2.0', id: call.id });
        return { raw: true };
      },
    });
    expect((await caught(rpc.getBalance('W'))).code).toBe('RPC_INVALID_RESPONSE');
    expect((await caught(rpc.getSlot())).code).toBe('RPC_INVALID_RESPONSE');
  });

  it('sends reads as one JSON-RPC batch, matching answers by id and keeping per-call errors', async () => {
    const { server, rpc } = await setup({
      getSlot: () => ({ result: 50 }),
      getBlockHeight: () => ({ result: 40 }),
    });
    const out = await rpc.batch([
      { method: 'getSlot', params: [] },
      { method: 'getBlockHeight', params: [{ commitment: 'finalized' }] },
      { method: 'getNothing', params: [] },
    ]);
    expect(server.requests).toHaveLength(1);
    expect(out[0]).toEqual({ ok: true, result: 50 });
    expect(out[1]).toEqual({ ok: true, result: 40 });
    expect(out[2]?.ok).toBe(false);
    if (out[2] && !out[2].ok) expect(out[2].error.context).toMatchObject({ rpcCode: -32601, method: 'getNothing' });
    await expect(rpc.batch([{ method: 'sendTransaction', params: ['AQAB'] }])).rejects.toThrow(/is a write/);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses more than 100 accounts in one getMultipleAccounts read without sending anything', async () => {
    const { server, rpc } = await setup({});
    const e = await caught(rpc.getMultipleAccounts(Array.from({ length: 101 }, (_, i) => `a${i}`)));
    expect(e.code).toBe('RPC_INVALID_PARAM');
    expect(server.calls).toHaveLength(0);
  });

  it('iterates V2 token accounts to the end with the cursor, and chunks owners batches at 250 wallets', async () => {
    const pages: Record<string, { accounts: unknown[]; cursor?: string }> = {
      start: {
        accounts: [
          { pubkey: 'A1', account: account(1) },
          { pubkey: 'A2', account: account(2) },
        ],
        cursor: 'c1',
      },
      c1: { accounts: [{ pubkey: 'A3', account: account(3) }], cursor: 'c2' },
      c2: { accounts: [{ pubkey: 'A4', account: account(0) }] },
    };
    const { server, rpc } = await setup({
      getTokenAccountsByOwnerV2: (params) => {
        const cfg = params[2] as { cursor?: string };
        return { result: { context: { slot: 5 }, value: { ...pages[cfg.cursor ?? 'start'], totalCount: 4 } } };
      },
      getTokenAccountsByOwners: (params) => ({ result: (params[0] as string[]).map((w) => ({ wallet: w, accounts: [] })) }),
    });
    const seen: string[] = [];
    for await (const page of rpc.iterateTokenAccountsByOwnerV2('Owner', { mint: 'Mint' }, { limit: 2, excludeZero: true, changedSince: 100 })) {
      expect(page.totalCount).toBe(4);
      seen.push(...page.accounts.map((a) => a.pubkey));
    }
    expect(seen).toEqual(['A1', 'A2', 'A3', 'A4']);
    expect(server.calls[0]?.params).toEqual(['Owner', { mint: 'Mint' }, { encoding: 'base64', changedSince: 100, excludeZero: true, limit: 2 }]);
    expect((server.calls[1]?.params[2] as { cursor: string }).cursor).toBe('c1');

    const wallets = Array.from({ length: 600 }, (_, i) => `w${i}`);
    const merged = (await rpc.getTokenAccountsByOwners(wallets, 'Mint')) as { wallet: string }[];
    const ownerCalls = server.calls.filter((c) => c.method === 'getTokenAccountsByOwners');
    expect(ownerCalls.map((c) => (c.params[0] as string[]).length)).toEqual([250, 250, 100]);
    expect(merged.map((m) => m.wallet)).toEqual(wallets);
    await expect(rpc.getProgramAccountsV2('P', { limit: 10_001 })).rejects.toThrow(/limit must be an integer from 1 to 10000/);
  });
});

describe('getTokenAccountsByOwners over 250 wallets', () => {
  it('merges the chunks of the {context, value} answer the service and the simulator give, losing no wallet', async () => {
    const { server, rpc } = await setup({
      getTokenAccountsByOwners: (params) => ({
        result: { context: { slot: 7 }, value: (params[0] as string[]).map((w) => ({ owner: w, accounts: [{ pubkey: `${w}-ata`, amount: '1' }] })) },
      }),
    });
    const wallets = Array.from({ length: 600 }, (_, i) => `w${i}`);
    const merged = (await rpc.getTokenAccountsByOwners(wallets, 'Mint')) as { context: { slot: number }; value: { owner: string }[] };
    expect(server.calls.filter((c) => c.method === 'getTokenAccountsByOwners').map((c) => (c.params[0] as string[]).length)).toEqual([250, 250, 100]);
    expect(merged.value.map((v) => v.owner)).toEqual(wallets);
    expect(merged.context.slot).toBe(7);
  });
});

describe('commitment ranks', () => {
  it('order processed < confirmed < finalized and treat null as below everything', () => {
    expect(commitmentRank('processed')).toBeLessThan(commitmentRank('confirmed'));
    expect(commitmentRank('confirmed')).toBeLessThan(commitmentRank('finalized'));
    expect(atLeast('finalized', 'confirmed')).toBe(true);
    expect(atLeast('confirmed', 'confirmed')).toBe(true);
    expect(atLeast('processed', 'confirmed')).toBe(false);
    expect(atLeast(null, 'processed')).toBe(false);
    expect(atLeast('rooted', 'processed')).toBe(false);
  });
});
