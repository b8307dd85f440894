/**
 * The simulator's real ledger (LiteSVM behind JSON-RPC and the swap service) in this process, with
 * one token to trade, for queue tests: workers reach it through its URLs.
 */
import { Keypair } from '@solana/web3.js';
import { systemClock } from '../../../src/core/clock.js';
import { seededRandom } from '../../../src/core/random.js';
import { silentLogger } from '../../../src/core/logger.js';
import { ledgerServices, type Ledger, type FaultRates } from '../../../src/sim/ledger/index.js';
import { fakeMarket } from '../../sim-ledger/fake-market.js';
import { FAKE_SWAP_PROGRAM } from './fake-chain.js';

export const INITIAL_LAMPORTS = 1_000_000_000_000n;
/** Programs the simulator's swaps call besides the base allow list. */
export const SIM_ALLOWED_PROGRAMS = [FAKE_SWAP_PROGRAM.toBase58(), 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'];

export interface SimChain {
  readonly rpcUrl: string;
  readonly swapUrl: string;
  readonly apiKey: string;
  readonly mint: string;
  readonly validBlocks: number;
  /** A funded wallet (seeded, deterministic). */
  wallet(n: number): Keypair;
  lamportsOf(wallet: string): bigint;
  tokensOf(wallet: string): bigint;
  /** The chain's status of a signature: undefined when it never landed, else its error (null = success). */
  landed(signature: string): { err: unknown } | undefined;
  successfulSwaps(): string[];
  close(): Promise<void>;
}

export async function startSimChain(o: {
  readonly seed: string;
  readonly faults?: Partial<FaultRates>;
  readonly slotMs?: number;
  readonly validBlocks?: number;
}): Promise<SimChain> {
  const market = fakeMarket(`${o.seed}-market`);
  let ledger: Ledger | undefined;
  const apiKey = `${o.seed}-rpc-key`;
  const validBlocks = o.validBlocks ?? 40;
  const service = await ledgerServices({
    slotMs: o.slotMs ?? 20,
    validBlocks,
    ...(o.faults ? { faults: o.faults } : {}),
    onLedger: (l) => (ledger = l),
  })({ market, clock: systemClock(), random: seededRandom(o.seed), apiKey, host: '127.0.0.1', log: silentLogger() });
  const led = ledger!;
  const mint = market.launch(30_000_000_000n, 1_000_000_000_000_000n, 6);
  const funded = new Set<string>();
  return {
    rpcUrl: service.urls['rpc'] ?? '',
    swapUrl: service.urls['swap'] ?? '',
    apiKey,
    mint,
    validBlocks,
    wallet(n) {
      const k = Keypair.fromSeed(new Uint8Array(32).fill(40 + n));
      const a = k.publicKey.toBase58();
      if (!funded.has(a)) {
        funded.add(a);
        void led.airdrop(a, INITIAL_LAMPORTS);
      }
      return k;
    },
    lamportsOf: (w) => led.balance(w),
    tokensOf: (w) => led.tokenAccountsByOwner(w, mint).reduce((n, a) => n + Buffer.from(a.data).readBigUInt64LE(64), 0n),
    landed: (sig) => {
      const s = led.signatureStatus(sig, true);
      return s ? { err: s.err } : undefined;
    },
    successfulSwaps: () => market.landed.map((l) => l.signature),
    close: () => service.stop(),
  };
}
