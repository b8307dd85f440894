/**
 * A strategy definition bound to validated parameters and exit rules: what the engine runs.
 */
import { ChainpilotError } from '../../core/index.js';
import type { ExitRules } from '../exits/exit-rules.js';
import type { StrategyDefinition } from './strategy-api.js';

export interface StrategyInstance {
  /** Unique within a deployment (defaults to the definition id). */
  readonly id: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- instances erase parameter and state types
  readonly definition: StrategyDefinition<any, any>;
  readonly params: unknown;
  readonly exits: ExitRules | undefined;
}

/**
 * Validates `rawParams` against the definition's schema and merges exit rules (the deployment's
 * `exits` override the definition's defaults key by key). Throws STRATEGY_INVALID_PARAMS listing
 * every problem.
 */
export function instantiateStrategy<P, S>(
  definition: StrategyDefinition<P, S>,
  rawParams: unknown,
  options: { id?: string; exits?: ExitRules | undefined } = {},
): StrategyInstance {
  const id = options.id ?? definition.id;
  const r = definition.params.safeParse(rawParams ?? {});
  if (!r.success) {
    const problems = r.error.issues.map((i) => `params.${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ChainpilotError('STRATEGY_INVALID_PARAMS', `strategy "${id}" has invalid parameters: ${problems.join('; ')}`, {
      retry: 'not_retryable',
      context: { strategyId: id, problems: problems.join('\n') },
    });
  }
  const params = r.data;
  const defaults = definition.exits?.(params);
  const exits = defaults || options.exits ? { ...defaults, ...stripUndefined(options.exits ?? {}) } : undefined;
  return Object.freeze({ id, definition, params, exits });
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
