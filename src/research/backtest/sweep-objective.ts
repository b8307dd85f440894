/**
 * Sweep objectives: what "best" means when a sweep selects a cell. Built-ins, or a function
 * exported by a module (`./my-strategy.ts#objective`): `(m: WindowMetrics) => number | null`, higher
 * is better, null ranks last. Cells with fewer closed trades than the minimum-trades guard rank after
 * every cell that has enough; ties go to the lower cell index, so a ranking never depends on timing.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ChainpilotError } from '../../core/index.js';
import type { WindowMetrics } from '../../engine/strategy/param-space.js';

export type ObjectiveFn = (m: WindowMetrics) => number | null;

/** Calmar's drawdown floor: a window that never drew down counts as 0.01 % drawdown. */
const MIN_DRAWDOWN_PCT = 0.01;

export const BUILTIN_OBJECTIVES: Readonly<Record<string, ObjectiveFn>> = Object.freeze({
  netPnl: (m) => Number(m.netPnlSol),
  sharpe: (m) => m.hourlySharpe,
  calmar: (m) => (m.trades === 0 ? null : m.returnPct / Math.max(m.maxDrawdownPct, MIN_DRAWDOWN_PCT)),
  profitFactor: (m) => m.profitFactor,
  // The names `--metric` has always accepted.
  netPnlSol: (m) => Number(m.netPnlSol),
  returnPct: (m) => m.returnPct,
  winRatePct: (m) => m.winRatePct,
  expectancySol: (m) => (m.expectancySol === null ? null : Number(m.expectancySol)),
  maxDrawdownPct: (m) => -m.maxDrawdownPct,
});

export interface Objective {
  readonly name: string;
  readonly fn: ObjectiveFn;
  readonly minTrades: number;
}

const bad = (msg: string): ChainpilotError => new ChainpilotError('BACKTEST_INVALID_OPTION', msg, { retry: 'not_retryable', context: { field: 'objective' } });

/** A built-in by name, or `PATH#EXPORT` loaded from a module (TypeScript through tsx), relative to `baseDir`. */
export async function loadObjective(name: string, minTrades: number, baseDir: string): Promise<Objective> {
  const builtin = Object.hasOwn(BUILTIN_OBJECTIVES, name) ? BUILTIN_OBJECTIVES[name] : undefined;
  if (builtin) return { name, fn: builtin, minTrades };
  const hash = name.lastIndexOf('#');
  if (hash <= 0)
    throw bad(`objective ${name}: expected one of ${Object.keys(BUILTIN_OBJECTIVES).join(', ')} or PATH#EXPORT (a function exported by the strategy file)`);
  const path = resolve(baseDir, name.slice(0, hash));
  const exportName = name.slice(hash + 1);
  let mod: Record<string, unknown>;
  try {
    const url = pathToFileURL(path).href;
    if (/\.m?js$/.test(path)) mod = (await import(url)) as Record<string, unknown>;
    else {
      const { tsImport } = await import('tsx/esm/api');
      mod = (await tsImport(url, import.meta.url)) as Record<string, unknown>;
    }
  } catch (e) {
    throw bad(`objective ${name}: cannot load ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const fn = mod[exportName];
  if (typeof fn !== 'function') throw bad(`objective ${name}: ${path} exports no function named ${exportName}`);
  return { name, fn: fn as ObjectiveFn, minTrades };
}

/** The objective's value of one window, or null (n/a, or a non-finite answer). */
export function scoreOf(o: Objective, m: WindowMetrics | undefined): number | null {
  if (!m) return null;
  const v = o.fn(m);
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Orders `items` best first by `o` on the window `metricsOf` gives, with the minimum-trades guard (scaled by `tradeScale`). */
export function rankBy<T extends { readonly index: number }>(
  items: readonly T[],
  o: Objective,
  metricsOf: (item: T) => WindowMetrics | undefined,
  tradeScale = 1,
): T[] {
  const minTrades = Math.ceil(o.minTrades * tradeScale);
  const keyed = items.map((it) => {
    const m = metricsOf(it);
    return { it, eligible: (m?.trades ?? 0) >= minTrades ? 0 : 1, score: scoreOf(o, m) };
  });
  keyed.sort((a, b) => {
    if (a.eligible !== b.eligible) return a.eligible - b.eligible;
    if (a.score === null || b.score === null) return a.score === b.score ? a.it.index - b.it.index : a.score === null ? 1 : -1;
    return b.score - a.score || a.it.index - b.it.index;
  });
  return keyed.map((k) => k.it);
}
