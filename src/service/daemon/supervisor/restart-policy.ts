/**
 * When the supervisor restarts a failed slot: only where that is safe (never after a
 * configuration error, nor a live deployment after damage to its store or execution), after a
 * capped exponential backoff whose exponent is the slot's failures in a row; a run that lasted
 * longer than the cap starts the count again.
 */
import { cappedBackoff } from '../../../core/index.js';
import type { DeploymentMode } from '../../../runtime/handle/deployment-handle.js';

export interface Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 60_000 };

/** True when restarting after `cause` could do harm or cannot help: a live store that reported damage, or bad config. */
export function restartIsSafe(mode: DeploymentMode, cause: { readonly code: string } | undefined): boolean {
  if (!cause) return true;
  // A configuration error (the file, a strategy that cannot load or take its parameters, a live rail, a store of
  // another deployment) waits for a reload.
  if (/^(CONFIG_|STRATEGY_(UNKNOWN|LOAD_FAILED|INVALID_PARAMS)$|RUNTIME_LIVE_|RUNTIME_STORE_FOREIGN$)/.test(cause.code)) return false;
  if (mode === 'live' && /^(JOURNAL_|EXEC_|RUNTIME_STORE)/.test(cause.code)) return false;
  return true;
}

/**
 * The wait before the next restart and the failure streak after it. `startedAt` is when the run
 * that failed started (undefined when it never did); `now` is on the same clock.
 */
export function nextRestart(b: Backoff, streak: number, startedAt: number | undefined, now: number): { readonly delayMs: number; readonly streak: number } {
  const s = startedAt !== undefined && now - startedAt > b.maxMs ? 0 : streak;
  return { delayMs: cappedBackoff(s, b.initialMs, b.maxMs), streak: s + 1 };
}
