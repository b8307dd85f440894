/**
 * Crash test against the simulator's real ledger (LiteSVM behind JSON-RPC and the swap service,
 * with its seeded faults): child processes running the live executor are killed with SIGKILL 50
 * times, at random moments and at named instants; see support/crash-suite.ts for the checks.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { seededRandom } from '../../src/core/random.js';
import { silentLogger } from '../../src/core/logger.js';
import { ledgerServices, type Ledger } from '../../src/sim/ledger/index.js';
import { fakeMarket } from '../sim-ledger/fake-market.js';
import { bundleChild, cleanUp, crashAndCheck, INITIAL_LAMPORTS, type Backend } from '../executors/support/crash-suite.js';

beforeAll(bundleChild);
afterAll(cleanUp);

describe('crash recovery on the simulator ledger (child processes killed with SIGKILL)', () => {
  it('against the simulator ledger: 50 kills, at most one landed transaction per intent, ledger = portfolio', async () => {
    const clock = systemClock();
    const market = fakeMarket('crash-market');
    let ledger: Ledger | undefined;
    const apiKey = 'crash-test-rpc-key';
    const service = await ledgerServices({
      slotMs: 20,
      validBlocks: 40,
      faults: { dropRate: 0.15, lateRate: 0.1, failRate: 0.1, rpcErrorRate: 0.03 },
      onLedger: (l) => (ledger = l),
    })({ market, clock, random: seededRandom('crash-sim'), apiKey, host: '127.0.0.1', log: silentLogger() });
    const led = ledger!;
    const mint = market.launch(30_000_000_000n, 1_000_000_000_000_000n, 6);
    const backend: Backend = {
      env: { RPC_URL: service.urls['rpc'] ?? '', RPC_KEY: apiKey, SWAP_URL: service.urls['swap'] ?? '', VALIDITY_BLOCKS: '40' },
      mint,
      fund: (w) => void led.airdrop(w.toBase58(), INITIAL_LAMPORTS),
      lamportsOf: (w) => led.balance(w.toBase58()),
      tokensOf: (w) => led.tokenAccountsByOwner(w.toBase58(), mint).reduce((n, a) => n + Buffer.from(a.data).readBigUInt64LE(64), 0n),
      landed: (sig) => {
        const s = led.signatureStatus(sig, true);
        return s ? { err: s.err } : undefined;
      },
      successfulSwaps: () => market.landed.map((l) => l.signature),
      received: () => undefined,
      close: () => service.stop(),
    };
    try {
      await crashAndCheck('s', backend, 50, 5, seededRandom('crash-sim-kills'));
    } finally {
      await backend.close();
    }
  }, 300_000);
});
