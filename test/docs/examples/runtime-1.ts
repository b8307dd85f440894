/** The example of docs/runtime.md (line 13); checked by test/docs/doc-examples.test.ts, compiled by the typecheck. */
// #region doc
import { createDeployment, loadDeployment } from '../../../src/runtime/index.js';

const handle = createDeployment(loadDeployment('config/paper-sim.yaml'), { mode: 'paper', speed: 'max' });
handle.events.on((e) => { if (e.type === 'alert') console.log(e.level, e.code, e.message); });
await handle.start();            // rejects with a coded error (state `failed`) when it cannot start
handle.health();                 // state, cause, readiness, feed health
handle.stats();                  // summary, open positions, pending intents, risk, denials by code
const report = await handle.stop({ drainMs: 10_000 }); // drain, then the per-intent report
// #endregion doc
