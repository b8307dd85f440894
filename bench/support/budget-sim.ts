/**
 * The simulator of the latency-budget bench, in its own process so that its work (slots, LiteSVM,
 * HTTP handling) does not run on the measured event loop. Args: wallet address(es, comma-separated), number of mints,
 * slot length in ms (default 20; the queue-worker bench uses mainnet's 400).
 * Prints one JSON line `{ rpc, swap, apiKey, mints }` once serving; exits when stdin closes.
 */
import { seededRandom, silentLogger, systemClock } from '../../src/core/index.js';
import { ledgerServices, type Ledger } from '../../src/sim/ledger/index.js';
import { fakeMarket } from '../../test/sim-ledger/fake-market.js';

const [wallet, count, slot] = process.argv.slice(2);
const SOL = 1_000_000_000n;
const market = fakeMarket('budget');
let ledger: Ledger | undefined;
const apiKey = 'bench-rpc-key';
const service = await ledgerServices({ slotMs: Number(slot ?? 20), validBlocks: 150, onLedger: (l) => (ledger = l) })({
  market,
  clock: systemClock(),
  random: seededRandom('budget'),
  apiKey,
  host: '127.0.0.1',
  log: silentLogger(),
});
const mints = Array.from({ length: Number(count) }, () => market.launch(3_000n * SOL, 10n ** 18n, 6));
for (const w of (wallet ?? '').split(',')) ledger!.airdrop(w, 1_000n * SOL);
process.stdout.write(`${JSON.stringify({ rpc: service.urls['rpc'], swap: service.urls['swap'], apiKey, mints })}\n`);
process.stdin.resume();
process.stdin.on('end', () => void service.stop().then(() => process.exit(0)));
