/** The example of docs/simulator.md (line 38); checked by test/docs/doc-examples.test.ts, compiled by the typecheck. */
// #region doc
import { ledgerServices, startSimulator } from '../../../src/sim/index.js';
const sim = await startSimulator({ seed: 7, speed: 'max', apiKey: 'k', services: [ledgerServices()] });
sim.urls;        // { base, prediction, datastream, ...urls of each service }
sim.market;      // SimMarketPort
sim.clock;       // the simulator's Clock
sim.stats();     // Datastream counters: clients, rooms, framesSent, messagesPublished, droppedForNoPong, droppedSlow
await sim.stop(); // services first, then the model, every socket and every timer
// #endregion doc
