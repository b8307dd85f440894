/**
 * The whole simulator as a user meets it: the real market model, REST and the ledger behind
 * JSON-RPC and the swap service, started together. A funded wallet buys a live token through
 * /swap, signs it with web3.js, sends it through RPC, and the trade shows up on the model's own
 * REST trade tape with the exact amounts that moved on the ledger.
 */
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, Transaction } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '../../src/client/spl-token.js';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock, seededRandom } from '../../src/core/index.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';
import { ledgerServices, WRAPPED_SOL_MINT, type Ledger } from '../../src/sim/ledger/index.js';
import { parseFunding } from '../../src/runtime/shell/sim-runtime.js';

const KEY = 'sim-with-ledger-key';

describe('the simulator with its ledger', () => {
  let sim: RunningSimulator | undefined;
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
  });

  it('lands a swap built by /swap on the real market model, and REST shows the exact amounts', async () => {
    const clock = manualClock(1_767_225_600_000);
    let ledger: Ledger | undefined;
    sim = await startSimulator({ seed: 11, port: 0, apiKey: KEY, clock, services: [ledgerServices({ onLedger: (l) => (ledger = l) })] });
    expect(ledger).toBeDefined();
    expect(Object.keys(sim.urls)).toEqual(expect.arrayContaining(['base', 'prediction', 'datastream', 'rpc', 'swap']));
    clock.advance(120_000); // two simulated minutes: tokens launch and trade

    const mint = [...sim.market.tokens()].map((t) => t.mint).find((m) => sim!.market.pool(m)?.tradable);
    expect(mint).toBeDefined();

    const connection = new Connection(`${sim.urls['rpc']}?api_key=${KEY}`, { commitment: 'confirmed', disableRetryOnRateLimit: true });
    const wallet = Keypair.fromSeed(seededRandom('sim-with-ledger-wallet').bytes(32));
    await connection.requestAirdrop(wallet.publicKey, 5 * LAMPORTS_PER_SOL);

    const quote = sim.market.quote(mint!, 'buy', 250_000_000n)!;
    const res = await fetch(`${sim.urls['swap']}/swap`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ wallet: wallet.publicKey.toBase58(), from: WRAPPED_SOL_MINT, to: mint, amount: 0.25, slippage: 5, priorityFee: 0 }),
    });
    expect(res.status).toBe(200);
    const tx = Transaction.from(Buffer.from(((await res.json()) as { txn: string }).txn, 'base64'));
    expect(tx.feePayer?.toBase58()).toBe(wallet.publicKey.toBase58());
    tx.partialSign(wallet);
    const sig = await connection.sendRawTransaction(tx.serialize(), { maxRetries: 0 });
    clock.advance(1_000);
    const status = (await connection.getSignatureStatuses([sig], { searchTransactionHistory: true })).value[0];
    expect(status?.err).toBeNull();

    const ata = getAssociatedTokenAddressSync(new PublicKey(mint!), wallet.publicKey);
    const received = BigInt((await connection.getTokenAccountBalance(ata)).value.amount);
    expect(received).toBe(quote.amountOut);

    const trades = (await (await fetch(`${sim.urls.base}/trades/${mint}?limit=500`, { headers: { 'x-api-key': KEY } })).json()) as {
      trades: { tx: string; type: string; amountRaw: string; solAmount: string; wallet: string }[];
    };
    const row = trades.trades.find((t) => t.tx === sig);
    expect(row).toMatchObject({ type: 'buy', wallet: wallet.publicKey.toBase58(), amountRaw: received.toString(), solAmount: '0.25' });
  });

  it('parses --fund as exact lamports and names the fix for a bad value', () => {
    expect(parseFunding('7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU=1.5').lamports).toBe(1_500_000_000n);
    expect(parseFunding('7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU=0.000000001').lamports).toBe(1n);
    expect(() => parseFunding('7xKX=abc')).toThrow(/ADDRESS=SOL/);
  });
});
