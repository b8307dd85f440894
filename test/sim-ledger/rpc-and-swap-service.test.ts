import { LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import { getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from '../../src/client/spl-token.js';
import { address, createSolanaRpc, signature } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WRAPPED_SOL_MINT } from '../../src/sim/ledger/index.js';
import { API_KEY, startHarness, type Harness } from './harness.js';

const SOL = WRAPPED_SOL_MINT;

describe('the JSON-RPC server', () => {
  let h: Harness;
  let mint: string;
  beforeAll(async () => {
    h = await startHarness();
    mint = h.market.launch(30n * BigInt(LAMPORTS_PER_SOL), 1_000_000_000_000_000n, 6);
  });
  afterAll(async () => {
    await h.stop();
  });

  it('requires the api_key query parameter and never echoes it', async () => {
    const base = h.service.urls['rpc']!;
    expect(base).not.toContain(API_KEY);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: [] });
    for (const url of [base, `${base}?api_key=wrong`]) {
      const res = await fetch(url, { method: 'POST', body });
      expect(res.status).toBe(401);
      const text = await res.text();
      expect(text).toContain('api_key');
      expect(text).not.toContain(API_KEY);
    }
  });

  it('answers unknown methods, bad params and bad JSON with JSON-RPC errors in HTTP 200', async () => {
    expect((await h.rpc('noSuchMethod', [])).json['error']).toMatchObject({ code: -32601 });
    const bad = await h.rpc('getBalance', ['not-an-address']);
    expect(bad.status).toBe(200);
    expect(bad.json['error']).toMatchObject({ code: -32602, message: expect.stringContaining('address') });
    const res = await fetch(h.rpcUrl, { method: 'POST', body: '{nope' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ error: { code: -32700 } });
  });

  it('refuses undecodable transactions with -32602 and says why', async () => {
    const r = await h.rpc('sendTransaction', [Buffer.from('not a transaction').toString('base64'), { encoding: 'base64' }]);
    expect(r.json['error']).toMatchObject({ code: -32602, message: expect.stringContaining('deserialize') });
    const sim = await h.rpc('simulateTransaction', ['AAAA', { encoding: 'base64', accounts: { addresses: ['nope'] } }]);
    expect(sim.json['error']).toMatchObject({ code: -32602, message: expect.stringContaining('accounts.addresses[0]') });
    const memcmp = await h.rpc('getProgramAccountsV2', [TOKEN_PROGRAM_ID.toBase58(), { filters: [{ memcmp: { offset: 0, bytes: '0OIl' } }] }]);
    expect(memcmp.json['error']).toMatchObject({ code: -32602 });
    const enc = await h.rpc('sendTransaction', ['AAAA', { encoding: 'base32' }]);
    expect(enc.json['error']).toMatchObject({ code: -32602, message: expect.stringContaining('encoding') });
  });

  it("answers @solana/kit's RPC client in shapes it accepts", async () => {
    const rpc = createSolanaRpc(h.rpcUrl);
    const w = await h.wallet(2);
    const balance = await rpc.getBalance(address(w.publicKey.toBase58()), { commitment: 'confirmed' }).send();
    expect(balance.value).toBe(2_000_000_000n);
    const { value } = await rpc.getLatestBlockhash().send();
    expect(value.lastValidBlockHeight).toBe(BigInt(h.ledger.blockHeight() + 150));
    const statuses = await rpc
      .getSignatureStatuses([signature('1111111111111111111111111111111111111111111111111111111111111111')], { searchTransactionHistory: true })
      .send();
    expect(statuses.value).toEqual([null]);
  });

  it('serves batches in order', async () => {
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 'a', method: 'getSlot', params: [] },
      { jsonrpc: '2.0', id: 'b', method: 'getBlockHeight' },
    ]);
    const res = (await (await fetch(h.rpcUrl, { method: 'POST', body })).json()) as { id: string; result: number }[];
    expect(res.map((r) => r.id)).toEqual(['a', 'b']);
    expect(res[0]!.result).toBe(h.ledger.slot());
  });

  it('lists token accounts by owner (plain, V2 with cursor pages, and for many owners with a zero-balance row)', async () => {
    const a = await h.wallet(3);
    const b = await h.wallet(3);
    const tx = await h.buildSigned(a, { from: SOL, to: mint, amount: 1, slippage: 5, priorityFee: 0 });
    await h.connection.sendRawTransaction(tx.serialize());
    const ata = getAssociatedTokenAddressSync(new PublicKey(mint), a.publicKey).toBase58();

    const parsed = await h.connection.getParsedTokenAccountsByOwner(a.publicKey, { programId: TOKEN_PROGRAM_ID });
    expect(parsed.value.map((v) => v.pubkey.toBase58())).toEqual([ata]);
    expect(parsed.value[0]!.account.data.parsed.info.mint).toBe(mint);

    const v2 = await h.rpc('getTokenAccountsByOwnerV2', [a.publicKey.toBase58(), { mint }, { encoding: 'base64', limit: 1 }]);
    expect(v2.json['result']).toMatchObject({ value: { totalCount: 1, cursor: null, accounts: [{ pubkey: ata }] } });

    const landedSlot = h.ledger.slot();
    const since = async (slot: number) =>
      (
        (await h.rpc('getTokenAccountsByOwnerV2', [a.publicKey.toBase58(), { mint }, { changedSince: slot }])).json['result'] as {
          value: { totalCount: number };
        }
      ).value.totalCount;
    expect(await since(landedSlot)).toBe(1);
    expect(await since(landedSlot + 1)).toBe(0);

    const owners = await h.rpc('getTokenAccountsByOwners', [[a.publicKey.toBase58(), b.publicKey.toBase58()], mint]);
    const value = (owners.json['result'] as { value: { owner: string; accounts: { pubkey: string | null; amount: string; slot: number | null }[] }[] }).value;
    expect(value[0]!.accounts[0]).toMatchObject({ pubkey: ata, slot: expect.any(Number) });
    expect(BigInt(value[0]!.accounts[0]!.amount)).toBeGreaterThan(0n);
    expect(value[1]!.accounts).toEqual([{ pubkey: null, mint, amount: '0', decimals: 6, slot: null }]);
    const tooMany = await h.rpc('getTokenAccountsByOwners', [Array.from({ length: 251 }, () => a.publicKey.toBase58()), mint]);
    expect(tooMany.json['error']).toMatchObject({ code: -32602, message: expect.stringContaining('250') });
  });

  it('pages getProgramAccountsV2 with a cursor until every account is seen once', async () => {
    const seen: string[] = [];
    let cursor: string | null | undefined;
    let total = 0;
    do {
      const r = await h.rpc('getProgramAccountsV2', [
        TOKEN_PROGRAM_ID.toBase58(),
        { encoding: 'base64', limit: 1, filters: [{ dataSize: 165 }], ...(cursor ? { cursor } : {}) },
      ]);
      const v = (r.json['result'] as { value: { accounts: { pubkey: string }[]; totalCount: number; cursor: string | null } }).value;
      seen.push(...v.accounts.map((x) => x.pubkey));
      total = v.totalCount;
      cursor = v.cursor;
    } while (cursor);
    expect(total).toBeGreaterThanOrEqual(2); // the pool vault and the wallet's account
    expect(new Set(seen).size).toBe(total);
  });

  it('reports recent prioritization fees of landed transactions', async () => {
    const w = await h.wallet(3);
    const tx = await h.buildSigned(w, { from: SOL, to: mint, amount: 0.1, slippage: 5, priorityFee: 0.0002 });
    await h.connection.sendRawTransaction(tx.serialize());
    const fees = await h.connection.getRecentPrioritizationFees({ lockedWritableAccounts: [w.publicKey] });
    expect(fees.map((f) => f.prioritizationFee)).toContain(1_000_000); // 200_000 lamports over 200_000 CU = 1 lamport = 1e6 micro-lamports per CU
  });

  it('reads accounts as base64 and the mint as jsonParsed', async () => {
    const multi = await h.connection.getMultipleAccountsInfo([new PublicKey(mint), PublicKey.unique()]);
    expect(multi[0]?.owner.equals(TOKEN_PROGRAM_ID)).toBe(true);
    expect(multi[1]).toBeNull();
    const info = await h.connection.getParsedAccountInfo(new PublicKey(mint));
    expect(info.value?.data).toMatchObject({ program: 'spl-token', parsed: { type: 'mint', info: { decimals: 6 } } });
  });
});

describe('the swap service', () => {
  let h: Harness;
  let mint: string;
  let wallet: string;
  beforeAll(async () => {
    h = await startHarness();
    mint = h.market.launch(30n * BigInt(LAMPORTS_PER_SOL), 1_000_000_000_000_000n, 6);
    wallet = (await h.wallet(1)).publicKey.toBase58();
  });
  afterAll(async () => {
    await h.stop();
  });

  const cases: [string, Record<string, unknown>, string][] = [
    ['a missing amount', { wallet: 'WALLET', from: SOL, to: 'MINT', slippage: 1, priorityFee: 0 }, 'amount'],
    ['a bad wallet', { wallet: 'xyz', from: SOL, to: 'MINT', amount: 1, slippage: 1, priorityFee: 0 }, 'wallet'],
    ['SOL on both sides', { wallet: 'WALLET', from: SOL, to: SOL, amount: 1, slippage: 1, priorityFee: 0 }, 'to'],
    ['a negative amount', { wallet: 'WALLET', from: SOL, to: 'MINT', amount: -1, slippage: 1, priorityFee: 0 }, 'amount'],
    ['slippage above 100 %', { wallet: 'WALLET', from: SOL, to: 'MINT', amount: 1, slippage: 101, priorityFee: 0 }, 'slippage'],
    ['more decimals than SOL has', { wallet: 'WALLET', from: SOL, to: 'MINT', amount: '0.0000000001', slippage: 1, priorityFee: 0 }, 'amount'],
    ['an unknown field', { wallet: 'WALLET', from: SOL, to: 'MINT', amount: 1, slippage: 1, priorityFee: 0, slipage: 2 }, 'slipage'],
    ['a text priority fee', { wallet: 'WALLET', from: SOL, to: 'MINT', amount: 1, slippage: 1, priorityFee: 'high' }, 'priorityFee'],
  ];
  for (const [what, body, field] of cases) {
    it(`refuses ${what} with HTTP 400 naming ${field}`, async () => {
      const withMint = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, v === 'MINT' ? mint : v === 'WALLET' ? wallet : v]));
      const { status, json } = await h.swap(withMint);
      expect(status).toBe(400);
      expect((json['error'] as { message: string }).message).toContain(field);
    });
  }

  it('refuses a token the market does not know, and a token that cannot trade now', async () => {
    const unknown = await h.swap({ wallet, from: SOL, to: PublicKey.unique().toBase58(), amount: 1, slippage: 1, priorityFee: 0 });
    expect(unknown).toMatchObject({ status: 400, json: { error: { code: 'LEDGER_TOKEN_NOT_TRADABLE' } } });
    h.market.setTradable(mint, false);
    const migrating = await h.swap({ wallet, from: SOL, to: mint, amount: 1, slippage: 1, priorityFee: 0 });
    h.market.setTradable(mint, true);
    expect(migrating).toMatchObject({ status: 400, json: { error: { code: 'LEDGER_TOKEN_NOT_TRADABLE' } } });
  });

  it('answers 404 off /swap', async () => {
    const res = await fetch(h.swapUrl.replace('/swap', '/quote'), { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
  });
});
