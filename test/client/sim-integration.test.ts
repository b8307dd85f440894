/**
 * The RPC and swap clients against the embedded simulator's real ledger (LiteSVM): a swap built by
 * the service, signed by the wallet, sent through sendTransaction, confirmed by status polling and
 * read back with getTransaction, with exact lamports throughout.
 */
import { LAMPORTS_PER_SOL, VersionedTransaction, type Transaction } from '@solana/web3.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { atLeast, createRpcClient, createSwapClient, WRAPPED_SOL_MINT, type RpcClient, type SwapClient } from '../../src/client/index.js';
import { API_KEY, startHarness, type Harness } from '../sim-ledger/harness.js';

describe('RPC and swap clients on the simulator ledger', () => {
  let h: Harness;
  let rpc: RpcClient;
  let swap: SwapClient;
  let mint: string;
  beforeEach(async () => {
    h = await startHarness();
    mint = h.market.launch(30n * BigInt(LAMPORTS_PER_SOL), 1_000_000_000_000_000n, 6);
    rpc = createRpcClient({ url: h.service.urls['rpc'] ?? '', apiKey: API_KEY, timeoutMs: 5000 });
    swap = createSwapClient({ url: h.service.urls['swap'] ?? '', timeoutMs: 5000 });
  });
  afterEach(async () => {
    await rpc.close();
    await swap.close();
    await h.stop();
  });

  it('builds, signs, sends and confirms a buy, with the fee and balances exact', async () => {
    const wallet = await h.wallet(10);
    const address = wallet.publicKey.toBase58();
    expect((await rpc.getBalance(address)).value).toBe(10n * BigInt(LAMPORTS_PER_SOL));

    const built = await swap.buildSwap({ wallet: address, from: WRAPPED_SOL_MINT, to: mint, amount: '1', slippagePct: 1, priorityFeeSol: '0.0001' });
    const tx = built.transaction;
    if (tx instanceof VersionedTransaction) tx.sign([wallet]);
    else (tx as Transaction).partialSign(wallet);
    const raw = tx instanceof VersionedTransaction ? tx.serialize() : (tx as Transaction).serialize();
    const height = await rpc.getBlockHeight();
    const { value: hash } = await rpc.getLatestBlockhash();
    expect(hash.lastValidBlockHeight).toBeGreaterThan(height);

    const signature = await rpc.sendTransaction(Buffer.from(raw).toString('base64'), { skipPreflight: false, maxRetries: 0, preflightCommitment: 'processed' });
    const first = await rpc.getSignatureStatuses([signature], { searchTransactionHistory: true });
    expect(first.value[0]?.err).toBeNull();
    h.slots(1);
    const later = await rpc.getSignatureStatuses([signature, 'unknownSignature1111111111111111111111111111111111111111111111111111111'], {
      searchTransactionHistory: true,
    });
    expect(atLeast(later.value[0]?.confirmationStatus, 'confirmed')).toBe(true);
    expect(later.value[1]).toBeNull();

    const landed = await rpc.getTransaction(signature, { commitment: 'confirmed' });
    expect(landed?.meta?.err).toBeNull();
    expect(landed?.meta?.fee).toBe(2n * 5_000n + 100_000n); // two signatures + 0.0001 SOL priority fee
    const walletIndex = 0; // fee payer
    const spent = (landed?.meta?.preBalances[walletIndex] ?? 0n) - (landed?.meta?.postBalances[walletIndex] ?? 0n);
    const balance = (await rpc.getBalance(address, { commitment: 'confirmed' })).value;
    expect(balance).toBe(10n * BigInt(LAMPORTS_PER_SOL) - spent);
    expect(landed?.meta?.postTokenBalances.some((b) => b.mint === mint && b.owner === address && BigInt(b.uiTokenAmount.amount) > 0n)).toBe(true);
  });

  it('surfaces a preflight failure as RPC_ERROR inside HTTP 200, not retried', async () => {
    const wallet = await h.wallet(10);
    const built = await swap.buildSwap({
      wallet: wallet.publicKey.toBase58(),
      from: WRAPPED_SOL_MINT,
      to: mint,
      amount: '1',
      slippagePct: 1,
      priorityFeeSol: '0',
    });
    // Unsigned by the wallet: the validator refuses it at preflight.
    await expect(rpc.sendTransaction(built.base64)).rejects.toMatchObject({ code: 'RPC_ERROR', retry: 'not_retryable' });
  });
});
