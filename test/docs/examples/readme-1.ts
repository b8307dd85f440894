/** The example of README.md (line 114); checked by test/docs/doc-examples.test.ts, compiled by the typecheck. */
// #region doc
import { createServiceClients } from '../../../src/index.js';                   // typed clients, units, errors, types
import { defineStrategy, solParam, z } from '../../../src/strategies/api.js';    // everything a strategy file needs
import { startSimulator, ledgerServices } from '../../../src/sim/index.js';     // the embedded simulator
import { runPaper, loadDeployment } from '../../../src/runtime/index.js';       // composition roots, engine, executors
import { testStrategy } from '../../../src/testing/index.js';                    // a strategy's tests: engine, paper fills, manual clock
// #endregion doc
