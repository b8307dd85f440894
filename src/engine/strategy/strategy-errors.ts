/**
 * A strategy's error policy: every error is counted and logged; `maxErrors` errors within the window
 * halt the strategy (its open positions keep their exit rules); a token whose events keep throwing
 * (QUARANTINE_AFTER errors in the window, below the halt threshold) is quarantined instead: the
 * strategy gets no more of that token's events, and that token's errors halt nothing.
 *
 * State: the errors within the window, each token's recent errors (bounded), the quarantined
 * tokens, and whether the strategy halted.
 */
import { describeError, type Clock, type Logger } from '../../core/index.js';
import type { EngineStats } from '../logs/engine-stats.js';

/** Errors by one token (within the error window) that quarantine it, when the halt threshold is higher. */
const QUARANTINE_AFTER = 3;
/** Tokens whose recent errors are remembered (a bound: one error each from endless tokens must not grow memory). */
const MAX_TOKENS_ERRING = 1_000;

export interface StrategyErrorsDeps {
  readonly strategyId: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly stats: EngineStats;
  readonly policy: { readonly maxErrors: number; readonly windowMs: number };
  /** Called once when the policy halts the strategy. */
  readonly onHalted?: (strategyId: string, message: string) => void;
}

export interface StrategyErrors {
  /** Counts and logs an error of `where` (about `mint`, if any); may quarantine the token or halt the strategy. */
  fail(where: string, e: unknown, mint?: string): void;
  /** True once the policy halted the strategy. */
  readonly halted: boolean;
  /** Whether events about `mint` are still delivered. */
  delivers(mint: string | undefined): boolean;
  /** Whether an event's token matters to the policy (errors are counted, or a token is quarantined). */
  readonly tracksTokens: boolean;
}

export function createStrategyErrors(d: StrategyErrorsDeps): StrategyErrors {
  const { strategyId: id, clock, log, policy } = d;
  /** The strategy's errors within the window (a quarantined token's are taken out: they halt nothing). */
  let errorTimes: { readonly at: number; readonly mint: string | undefined }[] = [];
  const tokenErrors = new Map<string, number[]>();
  /** Tokens whose events this strategy no longer gets: they threw QUARANTINE_AFTER times in the window. */
  const quarantined = new Set<string>();
  // below the halt threshold, and never on a token's first error (one error says nothing about the token)
  const quarantineAfter = Math.min(QUARANTINE_AFTER, policy.maxErrors - 1);
  let halted = false;

  /** Counts a token's error; true when it quarantined the token (its errors then halt nothing). */
  const quarantine = (mint: string, now: number, where: string, e: unknown): boolean => {
    const times = (tokenErrors.get(mint) ?? []).filter((t) => now - t <= policy.windowMs);
    times.push(now);
    tokenErrors.delete(mint); // re-inserted last: the map's first key is the token that erred longest ago
    tokenErrors.set(mint, times);
    if (tokenErrors.size > MAX_TOKENS_ERRING) tokenErrors.delete(tokenErrors.keys().next().value!);
    if (quarantineAfter < 2 || times.length < quarantineAfter) return false;
    tokenErrors.delete(mint);
    quarantined.add(mint);
    errorTimes = errorTimes.filter((x) => x.mint !== mint);
    d.stats.tokenQuarantined(id, mint);
    log.warn(
      { mint, errors: times.length, where },
      `strategy ${id} quarantined token ${mint} after ${times.length} errors in ${policy.windowMs} ms (last in ${where}: ${describeError(e)}); it gets no more events of that token and keeps trading the others`,
    );
    return true;
  };

  return {
    fail(where, e, mint) {
      d.stats.strategyError(id, where, e);
      log.error({ err: e, where, ...(mint !== undefined ? { mint } : {}) }, `strategy ${id} failed in ${where}`);
      if (policy.maxErrors <= 0) return;
      const now = clock.now();
      if (mint !== undefined && quarantine(mint, now, where, e)) return;
      errorTimes.push({ at: now, mint });
      errorTimes = errorTimes.filter((x) => now - x.at <= policy.windowMs);
      if (errorTimes.length >= policy.maxErrors && !halted) {
        halted = true;
        const message = `strategy ${id} halted after ${errorTimes.length} errors in ${policy.windowMs} ms (last in ${where}: ${describeError(e)}); its open positions keep their exit rules`;
        log.error({ errors: errorTimes.length }, message);
        d.onHalted?.(id, message);
      }
    },
    get halted() {
      return halted;
    },
    delivers: (mint) => mint === undefined || !quarantined.has(mint),
    get tracksTokens() {
      return quarantined.size > 0 || policy.maxErrors > 0;
    },
  };
}
