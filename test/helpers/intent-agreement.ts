/**
 * How many of one backtest's intents another backtest also decided: the same strategy, token and
 * side, each intent of `b` counted once (the download tests compare a recording's backtest with a
 * download's).
 */
import type { DecisionEntry } from '../../src/engine/logs/decision-log.js';

const intentKeys = (decisions: readonly DecisionEntry[]): string[] =>
  decisions.filter((e) => e.kind === 'intent').map((e) => `${e.strategyId}|${e.mint}|${e.side}`);

/** `a`'s intents, `b`'s, and how many of `a`'s are matched by one of `b`'s. */
export function intentAgreement(
  a: readonly DecisionEntry[],
  b: readonly DecisionEntry[],
): { readonly matched: number; readonly a: number; readonly b: number } {
  const ka = intentKeys(a);
  const kb = intentKeys(b);
  const left = new Map<string, number>();
  for (const k of kb) left.set(k, (left.get(k) ?? 0) + 1);
  let matched = 0;
  for (const k of ka) {
    const n = left.get(k) ?? 0;
    if (n > 0) {
      matched++;
      left.set(k, n - 1);
    }
  }
  return { matched, a: ka.length, b: kb.length };
}
