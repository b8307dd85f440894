/**
 * The refusal of every new intent once a deployment's stop has begun: the handle gives it while it
 * drains, and a backtest gives it from the recording's `stop` mark, so both write the same line.
 */
import type { ErrorCode } from '../../core/index.js';

export const STOPPING_DENIAL: { readonly code: ErrorCode; readonly reason: string } = Object.freeze({
  code: 'ENGINE_STOPPED',
  reason: 'the deployment is stopping: no new intents',
});
