/**
 * Starts the ledger services (ledger, JSON-RPC, swap) on loopback against the fake market and a
 * manual clock, and gives tests a web3.js Connection and helpers a user would write.
 */
import { Connection, Keypair, LAMPORTS_PER_SOL, Transaction, type TransactionSignature } from '@solana/web3.js';
import { manualClock, seededRandom, silentLogger, type ManualClock } from '../../src/core/index.js';
import { ledgerServices, type Ledger, type LedgerServicesOptions } from '../../src/sim/ledger/index.js';
import type { SimService } from '../../src/sim/market-port.js';
import { fakeMarket, type FakeMarket } from './fake-market.js';

export const API_KEY = 'test-rpc-key-123';
export const SLOT_MS = 400;

export interface Harness {
  readonly clock: ManualClock;
  readonly market: FakeMarket;
  readonly ledger: Ledger;
  readonly service: SimService;
  readonly rpcUrl: string;
  readonly swapUrl: string;
  readonly connection: Connection;
  /** Advances the simulator clock by `n` slots. */
  slots(n: number): void;
  /** POST /swap; returns the HTTP status and JSON body. */
  swap(body: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
  /** Gets a swap, signs it with `wallet`, returns the signed transaction. */
  buildSigned(wallet: Keypair, body: Record<string, unknown>): Promise<Transaction>;
  /** A funded wallet. */
  wallet(sol?: number): Promise<Keypair>;
  /** Raw JSON-RPC call. */
  rpc(method: string, params: unknown[]): Promise<{ status: number; json: Record<string, unknown> }>;
  /** Status of one signature (history search on). */
  status(sig: TransactionSignature): Promise<{ slot: number; confirmations: number | null; err: unknown; confirmationStatus?: string } | null>;
  stop(): Promise<void>;
}

let seedCounter = 0;

export async function startHarness(options: LedgerServicesOptions = {}): Promise<Harness> {
  const clock = manualClock(1_700_000_000_000);
  const market = fakeMarket(`market-${seedCounter}`);
  const random = seededRandom(`harness-${seedCounter++}`);
  let ledger: Ledger | undefined;
  const service = await ledgerServices({ ...options, onLedger: (l) => (ledger = l) })({
    market,
    clock,
    random,
    apiKey: API_KEY,
    host: '127.0.0.1',
    log: silentLogger(),
  });
  if (!ledger) throw new Error('ledger not created');
  const rpcBase = service.urls['rpc'] ?? '';
  const rpcUrl = `${rpcBase}?api_key=${API_KEY}`;
  const swapUrl = `${service.urls['swap'] ?? ''}/swap`;
  const connection = new Connection(rpcUrl, { commitment: 'confirmed', disableRetryOnRateLimit: true });
  const walletRandom = seededRandom(`wallets-${seedCounter}`);

  const h: Harness = {
    clock,
    market,
    ledger,
    service,
    rpcUrl,
    swapUrl,
    connection,
    slots: (n) => clock.advance(n * SLOT_MS),
    async swap(body) {
      const res = await fetch(swapUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    },
    async buildSigned(wallet, body) {
      const { status, json } = await h.swap({ wallet: wallet.publicKey.toBase58(), ...body });
      if (status !== 200 || typeof json['txn'] !== 'string') throw new Error(`swap failed: ${status} ${JSON.stringify(json)}`);
      const tx = Transaction.from(Buffer.from(json['txn'], 'base64'));
      tx.partialSign(wallet);
      return tx;
    },
    async wallet(sol = 10) {
      const w = Keypair.fromSeed(walletRandom.bytes(32));
      await connection.requestAirdrop(w.publicKey, sol * LAMPORTS_PER_SOL);
      return w;
    },
    async rpc(method, params) {
      const res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    },
    async status(sig) {
      const r = await connection.getSignatureStatuses([sig], { searchTransactionHistory: true });
      return r.value[0] ?? null;
    },
    stop: () => service.stop(),
  };
  return h;
}
