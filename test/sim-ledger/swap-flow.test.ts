import { LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '../../src/client/spl-token.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WRAPPED_SOL_MINT } from '../../src/sim/ledger/index.js';
import { constantProductOut } from './fake-market.js';
import { startHarness, type Harness } from './harness.js';

const SOL = WRAPPED_SOL_MINT;

describe('a swap built by /swap, signed by the user and sent through JSON-RPC', () => {
  let h: Harness;
  let mint: string;
  beforeEach(async () => {
    h = await startHarness();
    mint = h.market.launch(30n * BigInt(LAMPORTS_PER_SOL), 1_000_000_000_000_000n, 6);
  });
  afterEach(async () => {
    await h.stop();
  });

  it('lands a buy: wallet pays SOL and fee, receives the quoted tokens, and the model moves by exactly those amounts', async () => {
    const wallet = await h.wallet(10);
    const poolBefore = h.market.pool(mint)!;
    const expectedOut = constantProductOut(poolBefore, 'buy', 1_000_000_000n);
    const tx = await h.buildSigned(wallet, { from: SOL, to: mint, amount: 1, slippage: 1, priorityFee: 0.0001 });
    expect(tx.feePayer?.toBase58()).toBe(wallet.publicKey.toBase58());

    const sig = await h.connection.sendRawTransaction(tx.serialize(), { skipPreflight: false, maxRetries: 0 });
    expect((await h.status(sig))?.confirmationStatus).toBe('processed');
    h.slots(1);
    expect((await h.status(sig))?.confirmationStatus).toBe('confirmed');

    const ata = getAssociatedTokenAddressSync(new PublicKey(mint), wallet.publicKey);
    const tokenBal = await h.connection.getTokenAccountBalance(ata);
    expect(BigInt(tokenBal.value.amount)).toBe(expectedOut);

    const fee = 2n * 5_000n + 100_000n; // two signatures + 0.0001 SOL priority fee
    const rent = BigInt(await h.connection.getMinimumBalanceForRentExemption(165));
    const solBal = BigInt(await h.connection.getBalance(wallet.publicKey));
    expect(solBal).toBe(10n * BigInt(LAMPORTS_PER_SOL) - 1_000_000_000n - fee - rent);

    const got = await h.connection.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(got?.meta?.err).toBeNull();
    expect(BigInt(got!.meta!.fee)).toBe(fee);
    expect(got?.meta?.postTokenBalances?.find((b) => b.owner === wallet.publicKey.toBase58())?.uiTokenAmount.amount).toBe(expectedOut.toString());

    expect(h.market.landed).toHaveLength(1);
    expect(h.market.landed[0]).toMatchObject({
      mint,
      side: 'buy',
      solLamports: 1_000_000_000n,
      tokenRaw: expectedOut,
      signature: sig,
      wallet: wallet.publicKey.toBase58(),
    });
    const poolAfter = h.market.pool(mint)!;
    expect(poolAfter.solReserveLamports - poolBefore.solReserveLamports).toBe(1_000_000_000n);
    expect(poolBefore.tokenReserveRaw - poolAfter.tokenReserveRaw).toBe(expectedOut);

    h.slots(31);
    expect((await h.status(sig))?.confirmationStatus).toBe('finalized');
    expect((await h.status(sig))?.confirmations).toBeNull();
  });

  it('lands a sell back: tokens go to the pool vault and the quoted lamports to the wallet', async () => {
    const wallet = await h.wallet(10);
    const buy = await h.buildSigned(wallet, { from: SOL, to: mint, amount: '0.5', slippage: 1, priorityFee: 0 });
    await h.connection.sendRawTransaction(buy.serialize());
    h.slots(1);
    const ata = getAssociatedTokenAddressSync(new PublicKey(mint), wallet.publicKey);
    const held = BigInt((await h.connection.getTokenAccountBalance(ata)).value.amount);
    const solBefore = BigInt(await h.connection.getBalance(wallet.publicKey));
    const expectedSol = constantProductOut(h.market.pool(mint)!, 'sell', held);

    const sell = await h.buildSigned(wallet, { from: mint, to: SOL, amount: (Number(held) / 1e6).toString(), slippage: 1, priorityFee: 0 });
    const sig = await h.connection.sendRawTransaction(sell.serialize());
    h.slots(1);
    expect((await h.status(sig))?.err).toBeNull();
    expect(BigInt((await h.connection.getTokenAccountBalance(ata)).value.amount)).toBe(0n);
    expect(BigInt(await h.connection.getBalance(wallet.publicKey))).toBe(solBefore + expectedSol - 10_000n);
    expect(h.market.landed[1]).toMatchObject({ side: 'sell', tokenRaw: held, solLamports: expectedSol });
  });

  it('routes a graduated token to its AMM pool', async () => {
    const wallet = await h.wallet(5);
    h.market.graduate(mint);
    const tx = await h.buildSigned(wallet, { from: SOL, to: mint, amount: 0.1, slippage: 5, priorityFee: 0 });
    const sig = await h.connection.sendRawTransaction(tx.serialize());
    expect((await h.status(sig))?.err).toBeNull();
    expect(h.market.landed[0]?.mint).toBe(mint);
    expect(h.market.pool(mint)?.kind).toBe('amm');
    // The AMM pool (25 bps fee) gave more than the curve (100 bps) would have.
    expect(h.market.landed[0]!.tokenRaw).toBe(
      constantProductOut(
        { ...h.market.pool(mint)!, solReserveLamports: 30n * BigInt(LAMPORTS_PER_SOL), tokenReserveRaw: 1_000_000_000_000_000n },
        'buy',
        100_000_000n,
      ),
    );
  });

  it('pays a sell from the pool even when other traders in the model pushed its price beyond what the vault held', async () => {
    const small = h.market.launch(1n * BigInt(LAMPORTS_PER_SOL), 1_000_000_000_000n, 6);
    const wallet = await h.wallet(5);
    const buy = await h.buildSigned(wallet, { from: SOL, to: small, amount: 0.5, slippage: 5, priorityFee: 0 });
    await h.connection.sendRawTransaction(buy.serialize());
    const held = h.market.landed[0]!.tokenRaw;
    h.market.move(small, 'buy', 200n * BigInt(LAMPORTS_PER_SOL)); // the model's own traders, not on the ledger
    const expectedSol = constantProductOut(h.market.pool(small)!, 'sell', held);
    expect(expectedSol).toBeGreaterThan(2n * BigInt(LAMPORTS_PER_SOL)); // more than the vault ever held
    const before = BigInt(await h.connection.getBalance(wallet.publicKey));
    const sell = await h.buildSigned(wallet, { from: small, to: SOL, amount: (Number(held) / 1e6).toString(), slippage: 1, priorityFee: 0 });
    const sig = await h.connection.sendRawTransaction(sell.serialize());
    expect((await h.status(sig))?.err).toBeNull();
    expect(BigInt(await h.connection.getBalance(wallet.publicKey))).toBe(before + expectedSol - 10_000n);
  });

  it('pays a buy what the pool gives when it lands, not the quote it was built with: less after other traders bought first (within its slippage)', async () => {
    const wallet = await h.wallet(10);
    const quoted = constantProductOut(h.market.pool(mint)!, 'buy', 1_000_000_000n);
    const tx = await h.buildSigned(wallet, { from: SOL, to: mint, amount: 1, slippage: 10, priorityFee: 0 });
    h.market.move(mint, 'buy', 1_000_000_000n); // the model's own traders move the price up between build and landing
    const atLanding = constantProductOut(h.market.pool(mint)!, 'buy', 1_000_000_000n);
    expect(atLanding).toBeLessThan(quoted);
    const sig = await h.connection.sendRawTransaction(tx.serialize(), { skipPreflight: true, maxRetries: 0 });
    h.slots(1);
    const got = await h.connection.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(got?.meta?.err).toBeNull();
    const ata = getAssociatedTokenAddressSync(new PublicKey(mint), wallet.publicKey);
    expect(BigInt((await h.connection.getTokenAccountBalance(ata)).value.amount)).toBe(atLanding);
    expect(got?.meta?.postTokenBalances?.find((b) => b.owner === wallet.publicKey.toBase58())?.uiTokenAmount.amount).toBe(atLanding.toString());
    expect(h.market.landed[0]).toMatchObject({ side: 'buy', solLamports: 1_000_000_000n, tokenRaw: atLanding, signature: sig });
  });

  it('pays a sell what the pool gives when it lands: more lamports after other traders bought first', async () => {
    const wallet = await h.wallet(10);
    const buy = await h.buildSigned(wallet, { from: SOL, to: mint, amount: 1, slippage: 1, priorityFee: 0 });
    await h.connection.sendRawTransaction(buy.serialize());
    const held = h.market.landed[0]!.tokenRaw;
    const sell = await h.buildSigned(wallet, { from: mint, to: SOL, amount: (Number(held) / 1e6).toString(), slippage: 1, priorityFee: 0 });
    const quoted = constantProductOut(h.market.pool(mint)!, 'sell', held);
    h.market.move(mint, 'buy', 2_000_000_000n);
    const atLanding = constantProductOut(h.market.pool(mint)!, 'sell', held);
    expect(atLanding).toBeGreaterThan(quoted);
    const before = BigInt(await h.connection.getBalance(wallet.publicKey));
    const sig = await h.connection.sendRawTransaction(sell.serialize());
    expect((await h.status(sig))?.err).toBeNull();
    expect(BigInt(await h.connection.getBalance(wallet.publicKey))).toBe(before + atLanding - 10_000n);
    expect(h.market.landed[1]).toMatchObject({ side: 'sell', solLamports: atLanding, tokenRaw: held, signature: sig });
  });

  it('lands concurrent swaps from many wallets once each, even when every one is sent three times at once', async () => {
    const wallets = await Promise.all(Array.from({ length: 12 }, () => h.wallet(2)));
    const txs = await Promise.all(wallets.map((w, i) => h.buildSigned(w, { from: SOL, to: mint, amount: 0.01 * (i + 1), slippage: 50, priorityFee: 0 })));
    const sends = txs.flatMap((tx) => [0, 1, 2].map(() => h.connection.sendRawTransaction(tx.serialize(), { skipPreflight: true })));
    const sigs = await Promise.all(sends);
    expect(new Set(sigs).size).toBe(12);
    h.slots(1);
    const statuses = await h.connection.getSignatureStatuses([...new Set(sigs)]);
    expect(statuses.value.every((s) => s?.err === null && s.confirmationStatus === 'confirmed')).toBe(true);
    expect(h.market.landed).toHaveLength(12);
    expect(new Set(h.market.landed.map((l) => l.signature)).size).toBe(12);
  });
});
