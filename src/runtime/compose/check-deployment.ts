/**
 * Every problem of a deployment in one report: when the file has problems of its own (unknown keys,
 * values out of range), its strategies are loaded anyway and their problems (unknown or unloadable
 * strategy, parameters their schemas refuse) are listed with them, sorted by line, instead of
 * appearing one run later.
 */
import { isChainpilotError } from '../../core/index.js';
import { loadDeployment, type LoadedDeployment, type LoadOptions } from '../../config/index.js';
import { definitionsOf, paramProblems, type Found } from './resolve-strategies.js';

/** `loadDeployment`, whose CONFIG_INVALID also lists the strategies' problems. */
export async function loadDeploymentFully(file: string, options: LoadOptions = {}): Promise<LoadedDeployment> {
  try {
    return loadDeployment(file, options);
  } catch (e) {
    throw await withStrategyProblems(e, file, options);
  }
}

/**
 * The error to throw for `e`, a failure of loading `file`: a CONFIG_INVALID gains the strategies'
 * problems; anything else is returned as it is.
 */
export async function withStrategyProblems(e: unknown, file: string, options: LoadOptions = {}): Promise<unknown> {
  if (!isChainpilotError(e) || e.code !== 'CONFIG_INVALID') return e;
  const found = await definitionsOf(file);
  try {
    loadDeployment(file, { ...options, strategyProblems: (raw, locate) => strategyProblems(raw, locate, found) });
  } catch (full) {
    return full;
  }
  return e;
}

function strategyProblems(raw: unknown, locate: (path: readonly (string | number)[]) => string, found: readonly (Found | undefined)[]): string[] {
  const entries = typeof raw === 'object' && raw !== null ? (raw as { strategies?: unknown }).strategies : undefined;
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry: unknown, i): string[] => {
    const f = found[i];
    const e = typeof entry === 'object' && entry !== null ? (entry as { enabled?: unknown; params?: unknown }) : undefined;
    if (!f || !e || e.enabled === false) return [];
    if (!('def' in f)) return [`${locate(['strategies', i, 'use'])} strategies.${i}.use: ${f.problem}`];
    return paramProblems(f.def, e.params ?? {}, i, locate);
  });
}
