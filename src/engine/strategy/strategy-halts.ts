/**
 * Strategies the error policy halted, with the message that halted each, and the listeners told
 * of a halt (the runtime shows the deployment as degraded). A listener that throws is logged and
 * the others still hear of it.
 */
import type { Logger } from '../../core/index.js';

export interface StrategyHalts {
  /** The error policy halted `strategyId`: remembered, then every listener is told. */
  halted(strategyId: string, message: string): void;
  list(): { readonly strategyId: string; readonly message: string }[];
  /** Calls `listener` on each halt; returns the removal. */
  listen(listener: (strategyId: string, message: string) => void): () => void;
}

export function createStrategyHalts(log: Logger): StrategyHalts {
  const haltedBy = new Map<string, string>();
  const listeners = new Set<(strategyId: string, message: string) => void>();
  return {
    halted(strategyId, message) {
      haltedBy.set(strategyId, message);
      for (const l of listeners) {
        try {
          l(strategyId, message);
        } catch (e) {
          log.warn({ err: e instanceof Error ? e.message : String(e) }, 'a strategy-halt listener threw');
        }
      }
    },
    list: () => [...haltedBy].map(([strategyId, message]) => ({ strategyId, message })),
    listen(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
