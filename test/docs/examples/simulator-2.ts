/** The example of docs/simulator.md (line 342); checked by test/docs/doc-examples.test.ts, compiled by the typecheck. */
// #region doc
import { ledgerServices, startSimulator } from '../../../src/sim/index.js';

const sim = await startSimulator({ services: [ledgerServices({ faults: { dropRate: 0.05 } })] });
// sim.urls.rpc  -> http://127.0.0.1:40123/   (append ?api_key=<key>)
// sim.urls.swap -> http://127.0.0.1:40124    (POST /swap)
// #endregion doc
