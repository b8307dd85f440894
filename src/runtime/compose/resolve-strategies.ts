/**
 * Turns the deployment's `strategies:` list into engine strategy instances: built-ins by name, user
 * strategies from a TypeScript or JavaScript file (loaded at runtime through tsx). Parameter errors
 * are reported with file, line and key, all at once.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ChainpilotError, isChainpilotError, type ErrorCode } from '../../core/index.js';
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

/** Loads a user strategy file; its default export (or single exported definition) is the strategy. */
export async function loadStrategyFile(path: string): Promise<AnyDefinition> {
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
    throw new ChainpilotError('STRATEGY_LOAD_FAILED', `cannot load strategy file ${path}: ${e instanceof Error ? e.message : String(e)}`, {
      retry: 'not_retryable',
      context: { path },
    });
  }
  // A file compiled as CommonJS (a .ts strategy in a package without "type": "module", or a .cjs
  // file) arrives with its exports object as the default: look inside it too.
  const cjs = mod['default'];
  const inner = typeof cjs === 'object' && cjs !== null ? Object.values(cjs as Record<string, unknown>) : [];
  const candidates = [mod['default'], ...Object.values(mod), ...inner].filter(isDefinition);
  const def = candidates[0];
  if (!def) {
    throw new ChainpilotError('STRATEGY_LOAD_FAILED', `strategy file ${path} exports no strategy: export default defineStrategy({...})`, {
      retry: 'not_retryable',
      context: { path },
    });
  }
  return def;
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
  if (!Array.isArray(entries)) return [];
  const baseDir = dirname(resolve(file));
  return Promise.all(
    entries.map(async (e: unknown): Promise<string | undefined> => {
      const { id, use } = typeof e === 'object' && e !== null ? (e as { id?: unknown; use?: unknown }) : {};
      if (typeof id === 'string') return id;
      if (typeof use !== 'string') return undefined;
      if (Object.hasOwn(BUILTIN_STRATEGIES, use)) return BUILTIN_STRATEGIES[use]?.id;
      if (!isFile(use)) return undefined;
      return loadStrategyFile(resolve(baseDir, use)).then(
        (d) => d.id,
        () => undefined, // resolveStrategies reports the file that does not load, with its line
      );
    }),
  );
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
    // own keys only: `use: constructor` must not find Object.prototype.constructor
    let def: AnyDefinition | undefined = Object.hasOwn(BUILTIN_STRATEGIES, s.use) ? BUILTIN_STRATEGIES[s.use] : undefined;
    try {
      if (!def && isFile(s.use)) def = await loadStrategyFile(resolve(baseDir, s.use));
    } catch (e) {
      problems.push(`${loaded.locate(['strategies', i, 'use'])} strategies.${i}.use: ${isChainpilotError(e) ? e.message : String(e)}`);
      kinds.add('STRATEGY_LOAD_FAILED');
      continue;
    }
    if (!def) {
      problems.push(
        `${loaded.locate(['strategies', i, 'use'])} strategies.${i}.use: unknown strategy "${s.use}"; built-ins: ${Object.keys(BUILTIN_STRATEGIES).join(', ')}, or a path to a .ts file`,
      );
      kinds.add('STRATEGY_UNKNOWN');
      continue;
    }
    const id = s.id ?? def.id;
    if (ids.has(id)) {
      problems.push(`${loaded.locate(['strategies', i])} strategies.${i}.id: "${id}" is used twice; give each strategy a unique id`);
      kinds.add('CONFIG_INVALID');
      continue;
    }
    ids.add(id);
    const r = def.params.safeParse(s.params);
    if (!r.success) {
      // eslint-disable-next-line @typescript-eslint/unbound-method -- a factory's methods are closures: no `this`
      for (const issue of r.error.issues) problems.push(...describeIssue(issue, loaded.locate, s.params, def.params, ['strategies', i, 'params']));
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
