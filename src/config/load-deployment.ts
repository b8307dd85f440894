/**
 * Loads a deployment YAML file: parse (keeping line positions), substitute `${ENV}` in secret
 * fields only, validate strictly against the schema, and report every problem at once, each with
 * file, line, key and what is allowed. The result is deeply frozen.
 */
import { readFileSync } from 'node:fs';
import { isMap, isNode, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { ChainpilotError } from '../core/index.js';
import { deploymentSchema, SECRET_PATHS, type Deployment } from './schema.js';

export interface LoadedDeployment {
  readonly deployment: Deployment;
  readonly file: string;
  /** Secret values found (after substitution): register them with the redactor. */
  readonly secrets: readonly string[];
  /** "file:line:col" of the node at `path` (or of its nearest existing parent). */
  locate(path: readonly (string | number)[]): string;
}

export interface LoadOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Reads and validates `file`. Throws CONFIG_UNREADABLE, CONFIG_YAML_SYNTAX or CONFIG_INVALID. */
export function loadDeployment(file: string, options: LoadOptions = {}): LoadedDeployment {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ChainpilotError('CONFIG_UNREADABLE', `cannot read deployment file ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}; check the path`, { retry: 'not_retryable', context: { file } });
  }
  return parseDeployment(text, file, options);
}

/** Validates YAML `text` as if read from `file`. */
export function parseDeployment(text: string, file: string, options: LoadOptions = {}): LoadedDeployment {
  const env = options.env ?? process.env;
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number): string => {
    const { line, col } = lineCounter.linePos(offset);
    return `${file}:${line}:${col}`;
  };
  if (doc.errors.length > 0) {
    const lines = doc.errors.map((e) => `  - ${at(e.pos[0])} ${e.message.split('\n')[0]}`);
    throw new ChainpilotError('CONFIG_YAML_SYNTAX', `${file} is not valid YAML:\n${lines.join('\n')}`, { retry: 'not_retryable', context: { file } });
  }
  const locate = (path: readonly (string | number)[]): string => locateIn(doc, path, at);
  const problems: string[] = [];
  const secrets: string[] = [];
  const raw: unknown = doc.toJS({ maxAliasCount: 100 }) ?? {};
  const substituted = substitute(raw, [], env, secrets, (path, msg) => problems.push(`${locate(path)} ${path.join('.')}: ${msg}`));

  const result = deploymentSchema.safeParse(substituted);
  if (!result.success) {
    for (const issue of result.error.issues) problems.push(...describeIssue(issue, locate, substituted));
  }
  if (problems.length > 0 || !result.success) {
    const n = problems.length;
    const lineOf = (p: string): number => Number(/^[^ ]*:(\d+):\d+ /.exec(p)?.[1] ?? 0);
    problems.sort((a, b) => lineOf(a) - lineOf(b));
    throw new ChainpilotError('CONFIG_INVALID', `${file} has ${n} error${n === 1 ? '' : 's'}:\n${problems.map((p) => `  - ${p}`).join('\n')}`, {
      retry: 'not_retryable',
      context: { file, errors: n },
    });
  }
  return { deployment: deepFreeze(result.data), file, secrets, locate };
}

function isSecretPath(path: readonly (string | number)[]): boolean {
  return SECRET_PATHS.some((p) => p.length === path.length && p.every((k, i) => k === path[i]));
}

function substitute(value: unknown, path: (string | number)[], env: Readonly<Record<string, string | undefined>>, secrets: string[], problem: (path: (string | number)[], msg: string) => void): unknown {
  if (typeof value === 'string') {
    const secret = isSecretPath(path);
    if (!value.includes('${')) {
      if (secret) secrets.push(value);
      return value;
    }
    if (!secret) {
      problem(path, `\${...} substitution is allowed only in secret fields (${SECRET_PATHS.map((p) => p.join('.')).join(', ')}); write the value itself`);
      return value;
    }
    const out = value.replace(ENV_REF, (_, name: string) => {
      const v = env[name];
      if (v === undefined || v === '') {
        problem(path, `environment variable ${name} is not set; export ${name}=... before running`);
        return '';
      }
      return v;
    });
    secrets.push(out);
    return out;
  }
  if (Array.isArray(value)) return value.map((v, i) => substitute(v, [...path, i], env, secrets, problem));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, [...path, k], env, secrets, problem)]));
  }
  return value;
}

function describeIssue(issue: z.core.$ZodIssue, locate: (path: readonly (string | number)[]) => string, input: unknown): string[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const allowed = allowedKeysAt(path);
    return issue.keys.map((k) => `${locate([...path, k])} ${[...path, k].join('.')}: unknown key "${k}"${allowed ? `; allowed here: ${allowed.join(', ')}` : ''}`);
  }
  const where = path.length > 0 ? path.join('.') : '(top level)';
  let msg = issue.message;
  msg = msg.replace(/^Invalid input: /, '');
  if (issue.code === 'invalid_type' && valueAt(input, path) === undefined) msg = `required key is missing (${msg})`;
  if (issue.code === 'invalid_value') msg = `${msg}; got ${JSON.stringify(valueAt(input, path)) ?? 'nothing'}`;
  return [`${locate(path)} ${where}: ${msg}`];
}

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let v = root;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

/** Keys the schema allows at `path` (for "allowed here" hints). */
function allowedKeysAt(path: readonly (string | number)[]): string[] | undefined {
  let s: unknown = deploymentSchema;
  const unwrap = (x: unknown): unknown => {
    for (let i = 0; i < 10; i++) {
      const def = (x as { _zod?: { def?: { type?: string; innerType?: unknown; in?: unknown; element?: unknown } } })._zod?.def;
      if (!def) return x;
      if (def.type === 'optional' || def.type === 'default' || def.type === 'prefault' || def.type === 'nullable') x = def.innerType;
      else if (def.type === 'pipe') x = def.in;
      else return x;
    }
    return x;
  };
  for (const key of path) {
    s = unwrap(s);
    const def = (s as { _zod: { def: { type: string; shape?: Record<string, unknown>; element?: unknown } } })._zod.def;
    if (def.type === 'object' && typeof key === 'string') s = def.shape?.[key];
    else if (def.type === 'array') s = def.element;
    else return undefined;
    if (s === undefined) return undefined;
  }
  const def = (unwrap(s) as { _zod: { def: { type: string; shape?: Record<string, unknown> } } })._zod.def;
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : undefined;
}

function locateIn(doc: Document, path: readonly (string | number)[], at: (offset: number) => string): string {
  for (let n = path.length; n >= 0; n--) {
    const parentPath = path.slice(0, Math.max(0, n - 1));
    const key = path[n - 1];
    if (n > 0) {
      const parent = parentPath.length === 0 ? doc.contents : doc.getIn(parentPath, true);
      if (isMap(parent)) {
        const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === key);
        if (pair && isNode(pair.key) && pair.key.range) return at(pair.key.range[0]);
      }
      const node = doc.getIn(path.slice(0, n), true);
      if (isNode(node) && node.range) return at(node.range[0]);
    } else if (isNode(doc.contents) && doc.contents.range) {
      return at(doc.contents.range[0]);
    }
  }
  return at(0);
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}
