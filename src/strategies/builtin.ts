/** The built-in strategies by name (the `use:` value in a deployment). */
import type { StrategyDefinition } from './api.js';
import { copyTrader } from './copy-trader/index.js';
import { curveMomentum } from './curve-momentum/index.js';
import { dcaFlow } from './dca-flow/index.js';
import { graduationSniper } from './graduation-sniper/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds strategies of any parameter type
export const BUILTIN_STRATEGIES: Readonly<Record<string, StrategyDefinition<any, any>>> = Object.freeze({
  'graduation-sniper': graduationSniper,
  'curve-momentum': curveMomentum,
  'copy-trader': copyTrader,
  'dca-flow': dcaFlow,
});
