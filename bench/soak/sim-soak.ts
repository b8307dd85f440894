/**
 * Soak child: the simulator alone (model, REST/Datastream server, room router) on a manual clock,
 * stepped one simulated hour at a time for SOAK_HOURS, one memory sample per simulated hour.
 */
import { manualClock } from '../../src/core/index.js';
import { startSimulator } from '../../src/sim/start-simulator.js';
import { printSample } from './soak-sample.js';

const hours = Number(process.env['SOAK_HOURS'] ?? 48);
const launchesPerHour = Number(process.env['SOAK_LAUNCHES_PER_HOUR'] ?? 300);
const clock = manualClock(1_700_000_000_000);
const sim = await startSimulator({ seed: 42, clock, market: { launchesPerHour } });
const started = Date.now();
for (let h = 1; h <= hours; h++) {
  for (let m = 0; m < 60; m++) clock.advance(60_000);
  const s = sim.model.state;
  let trades = 0;
  for (const rows of s.tradesByToken.values()) trades += rows.length;
  printSample(h, started, { tokens: s.tokens.size, trades, wallets: s.wallets.size });
}
await sim.stop();
