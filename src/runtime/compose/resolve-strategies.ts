/**
 * Turns the deployment's `strategies:` list into engine strategy instances: built-ins by name, user
 * strategies from a TypeScript or JavaScript file (loaded at runtime through tsx). Parameter errors
 * are reported with file, line and key, all at once.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ChainpilotError, didYouMean, isChainpilotError, type ErrorCode } from '../../core/index.js';
import { parse } from 'yaml';
import { describeIssue, readDeploymentText, type LoadedDeployment, type StrategyConfig, type StrategyIds } from '../../config/index.js';
import type { ExitRules } from '../../engine/exits/exit-rules.js';
import type { StrategyDefinition } from '../../engine/strategy/strategy-api.js';
import { instantiateStrategy, type StrategyInstance } from '../../engine/strategy/strategy-instance.js';
import { BUILTIN_STRATEGIES } from '../../strategies/builtin.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- definitions of any parameter type
type AnyDefinition = StrategyDefinition<any, any>;

const isFile = (use: string): boolean => /\.(ts|mts|cts|js|mjs|cjs)$/.test(use) || use.startsWith('.') || isAbsolute(use);

function isDefinition(v: unknown): v is AnyDefinition {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { id?: unknown }).id === 'string' &&
    typeof (v as { params?: { safeParse?: unknown } }).params?.safeParse === 'function'
  );
}

/**
 * Loads a user strategy file; its default export (or single exported definition) is the strategy.
 * `shown` is the path as the user wrote it (the `use:` value), named in errors.
 */
export async function loadStrategyFile(path: string, shown: string = path): Promise<AnyDefinition> {
  // the loader's own "cannot find module" names its importer (chainpilot's dist/): say it plainly instead
  if (!existsSync(path))
    throw new ChainpilotError(
      'STRATEGY_LOAD_FAILED',
      `strategy file ${shown} does not exist (looked for ${path}); a path in use: is relative to the deployment file`,
      {
        retry: 'not_retryable',
        context: { path: shown },
      },
    );
  let mod: Record<string, unknown>;
  try {
    const url = pathToFileURL(path).href;
    if (/\.[mc]?js$/.test(path)) {
      mod = (await import(url)) as Record<string, unknown>;
    } else {
      // tsx loads only when a TypeScript strategy is named.
      const { tsImport } = await import('tsx/esm/api');
      mod = (await tsImport(url, import.meta.url)) as Record<string, unknown>;
    }
  } catch (e) {
    throw new ChainpilotError('STRATEGY_LOAD_FAILED', `cannot load strategy file ${shown}: ${e instanceof Error ? e.message : String(e)}`, {
      retry: 'not_retryable',
      context: { path: shown },
    });
  }
  // A file compiled as CommonJS (a .ts strategy in a package without "type": "module", or a .cjs
  // file) arrives with its exports object as the default: look inside it too.
  const cjs = mod['default'];
  const inner = typeof cjs === 'object' && cjs !== null ? Object.values(cjs as Record<string, unknown>) : [];
  const candidates = [mod['default'], ...Object.values(mod), ...inner].filter(isDefinition);
  const def = candidates[0];
  if (!def) {
    throw new ChainpilotError('STRATEGY_LOAD_FAILED', `strategy file ${shown} exports no strategy: export default defineStrategy({...})`, {
      retry: 'not_retryable',
      context: { path: shown },
    });
  }
  return def;
}

/** The definition `use` names (a built-in, or a file relative to `baseDir`), or why there is none. */
export type Found = { readonly def: AnyDefinition } | { readonly kind: ErrorCode; readonly problem: string };

export async function definitionOf(use: string, baseDir: string): Promise<Found> {
  // own keys only: `use: constructor` must not find Object.prototype.constructor
  const builtin = Object.hasOwn(BUILTIN_STRATEGIES, use) ? BUILTIN_STRATEGIES[use] : undefined;
  if (builtin) return { def: builtin };
  if (!isFile(use)) {
    const names = Object.keys(BUILTIN_STRATEGIES);
    return { kind: 'STRATEGY_UNKNOWN', problem: `unknown strategy "${use}"${didYouMean(use, names)}; built-ins: ${names.join(', ')}, or a path to a .ts file` };
  }
  try {
    return { def: await loadStrategyFile(resolve(baseDir, use), use) };
  } catch (e) {
    return { kind: 'STRATEGY_LOAD_FAILED', problem: isChainpilotError(e) ? e.message : String(e) };
  }
}

/** `params` of strategy `i` against its definition's schema: each problem with file, line and key. */
export function paramProblems(def: AnyDefinition, params: unknown, i: number, locate: (path: readonly (string | number)[]) => string): string[] {
  const r = def.params.safeParse(params);
  return r.success ? [] : r.error.issues.flatMap((issue) => describeIssue(issue, locate, params, def.params, ['strategies', i, 'params']));
}

/**
 * The definitions of the file's `strategies:` entries, by position, read leniently from its text
 * (undefined for an entry with no `use`, or a file that is not YAML: the loader reports those).
 */
export async function definitionsOf(file: string, text?: string): Promise<(Found | undefined)[]> {
  let entries: unknown;
  try {
    entries = (parse(text ?? readDeploymentText(file)) as { strategies?: unknown } | null)?.strategies;
  } catch {
    return []; // the loader reports the unreadable file or the YAML error itself
  }
  if (!Array.isArray(entries)) return [];
  const baseDir = dirname(resolve(file));
  return Promise.all(
    entries.map(async (e: unknown): Promise<Found | undefined> => {
      const use = typeof e === 'object' && e !== null ? (e as { use?: unknown }).use : undefined;
      return typeof use === 'string' ? definitionOf(use, baseDir) : undefined;
    }),
  );
}

/**
 * The strategies' own ids by position, for `--set strategies[ID]...`: each entry's `id:`, else the id
 * of the definition its `use` names (undefined where the entry or its file is not usable: those
 * problems are reported when the deployment is validated and its strategies resolved).
 */
export async function strategyIdsOf(file: string, text?: string): Promise<StrategyIds> {
  let entries: unknown;
  try {
    entries = (parse(text ?? readDeploymentText(file)) as { strategies?: unknown } | null)?.strategies;
  } catch {
    return []; // the loader reports the unreadable file or the YAML error itself
  }
  const found = await definitionsOf(file, text);
  return (Array.isArray(entries) ? entries : []).map((e: unknown, i) => {
    const id = typeof e === 'object' && e !== null ? (e as { id?: unknown }).id : undefined;
    const f = found[i];
    return typeof id === 'string' ? id : f && 'def' in f ? f.def.id : undefined;
  });
}

function exitsOf(s: StrategyConfig): ExitRules | undefined {
  if (!s.exits) return undefined;
  const { timeStop, ...rest } = s.exits;
  return { ...rest, timeStopMs: timeStop };
}

/**
 * Resolves every enabled strategy. Throws one error listing every unknown strategy, unloadable file
 * and bad parameter: STRATEGY_UNKNOWN, STRATEGY_LOAD_FAILED or STRATEGY_INVALID_PARAMS when all
 * problems are of that kind, CONFIG_INVALID for a mix or a duplicate id.
 */
export async function resolveStrategies(loaded: LoadedDeployment): Promise<StrategyInstance[]> {
  const out: StrategyInstance[] = [];
  const problems: string[] = [];
  const kinds = new Set<ErrorCode>();
  const ids = new Set<string>();
  const baseDir = dirname(resolve(loaded.file));
  for (const [i, s] of loaded.deployment.strategies.entries()) {
    if (!s.enabled) continue;
    const found = await definitionOf(s.use, baseDir);
    if (!('def' in found)) {
      problems.push(`${loaded.locate(['strategies', i, 'use'])} strategies.${i}.use: ${found.problem}`);
      kinds.add(found.kind);
      continue;
    }
    const { def } = found;
    const id = s.id ?? def.id;
    if (ids.has(id)) {
      problems.push(`${loaded.locate(['strategies', i])} strategies.${i}.id: "${id}" is used twice; give each strategy a unique id`);
      kinds.add('CONFIG_INVALID');
      continue;
    }
    ids.add(id);
    // eslint-disable-next-line @typescript-eslint/unbound-method -- locate is a closure: no `this`
    const bad = paramProblems(def, s.params, i, loaded.locate);
    if (bad.length > 0) {
      problems.push(...bad);
      kinds.add('STRATEGY_INVALID_PARAMS');
      continue;
    }
    out.push(instantiateStrategy(def, s.params, { id, exits: exitsOf(s) }));
  }
  if (problems.length > 0) {
    // One kind of problem gets its own code (STRATEGY_UNKNOWN, ...); a mix is CONFIG_INVALID.
    const code: ErrorCode = kinds.size === 1 ? [...kinds][0]! : 'CONFIG_INVALID';
    throw new ChainpilotError(
      code,
      `${loaded.file} has ${problems.length} strategy error${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
      {
        retry: 'not_retryable',
        context: { file: loaded.file, errors: problems.length },
      },
    );
  }
  return out;
}
