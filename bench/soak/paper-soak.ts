/**
 * Soak child: the shipped paper deployment (config/paper-sim.yaml, decision log off) trading on the
 * embedded simulator at maximum speed over real sockets (Datastream client, REST look-ups, paper
 * executor), one memory sample per simulated hour until SOAK_HOURS simulated hours have passed.
 */
import { createDatastreamClient } from '../../src/client/datastream/index.js';
import { createRedactor, seededRandom } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import { createPaperExecutor } from '../../src/executors/paper/paper-executor.js';
import { createDeploymentEngine } from '../../src/runtime/compose/deployment-engine.js';
import { createRestPorts } from '../../src/runtime/compose/rest-ports.js';
import { resolveStrategies } from '../../src/runtime/compose/resolve-strategies.js';
import { startSimulator } from '../../src/sim/start-simulator.js';
import { printSample } from './soak-sample.js';

const hours = Number(process.env['SOAK_HOURS'] ?? 48);
const launchesPerHour = Number(process.env['SOAK_LAUNCHES_PER_HOUR'] ?? 300);
const loaded = loadDeployment(new URL('../../config/paper-sim.yaml', import.meta.url).pathname);
const { decisionLog: _off, ...telemetry } = loaded.deployment.telemetry;
const d = { ...loaded.deployment, telemetry };
const strategies = await resolveStrategies(loaded);
const apiKey = 'soak-key-0123456789abcdef';
const sim = await startSimulator({ seed: 42, speed: 'max', apiKey, market: { launchesPerHour } });
const clock = sim.clock;
const rest = createRestPorts({ baseUrl: sim.urls.base, apiKey, redactor: createRedactor() });
const feed = createDatastreamClient({ url: sim.urls.datastream, apiKey, clock, random: seededRandom(42).fork('datastream'), backfill: rest.backfill });
const market = { get: (mint: string) => engine.market.get(mint) };
const executor = createPaperExecutor({ clock, market, latencyMs: d.paper.latency });
const { engine } = createDeploymentEngine({
  deployment: d,
  strategies,
  feed,
  executor,
  clock,
  random: seededRandom(42),
  startingCashLamports: d.paper.startingBalanceLamports,
  data: rest.data,
});
await engine.start();
const started = Date.now();
const t0 = clock.now();
let hour = 0;
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    const h = Math.floor((clock.now() - t0) / 3_600_000);
    if (h <= hour) return;
    hour = h;
    const s = engine.stats.summary();
    const cashMilliSol = Number(engine.portfolio.totals().cashLamports / 1_000_000n);
    printSample(hour, started, {
      events: s.events,
      intents: s.intents,
      fills: s.fills,
      denials: s.denials,
      openPositions: s.openPositions,
      rooms: engine.rooms().length,
      cashMilliSol,
      dailyHalted: engine.risk.halted(clock.now()) ? 1 : 0,
      tokens: sim.model.state.tokens.size,
    });
    if (hour >= hours) {
      clearInterval(timer);
      resolve();
    }
  }, 200);
});
await engine.stop(AbortSignal.timeout(5_000));
feed.close();
await rest.close();
await sim.stop();
