/**
 * Loads a deployment YAML file: parse (keeping line positions), substitute `${ENV}` in secret
 * fields only, validate strictly against the schema, and report every problem at once, each with
 * file, line, key and what is allowed. The result is deeply frozen.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isMap, isNode, isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import type { z } from 'zod';
import { ChainpilotError, didYouMean, isChainpilotError, type ErrorCode } from '../core/index.js';
import { CONFIG_TEXT_LIMITS, describeRange, limitAt } from './limits.js';
import { deploymentSchema, SECRET_PATHS, type Deployment } from './schema.js';
import { resolveSetPath, setAt, type SetOverride, type StrategyIds } from './overrides.js';

export interface LoadedDeployment {
  readonly deployment: Deployment;
  readonly file: string;
  /** Secret values found (after substitution): register them with the redactor. */
  readonly secrets: readonly string[];
  /** "file:line:col" of the node at `path` (or of its nearest existing parent). */
  locate(path: readonly (string | number)[]): string;
  /** Whether the file itself sets the value at `path` (false: the schema's default applies). */
  has(path: readonly (string | number)[]): boolean;
}

export interface LoadOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `--set PATH=VALUE` overrides, applied to the file before it is validated (overrides.ts). */
  readonly set?: readonly SetOverride[];
  /** The strategies' own ids by position, so that `--set strategies[ID]...` finds a strategy without `id:`. */
  readonly strategyIds?: StrategyIds;
  /**
   * The strategies' own problems (unknown or unloadable strategy, parameters its schema refuses) in
   * the substituted file, each as `file:line:col key: what`. Asked only when the file has problems of
   * its own, so that one run reports them all (runtime/compose/check-deployment.ts gives it).
   */
  readonly strategyProblems?: (raw: unknown, locate: (path: readonly (string | number)[]) => string) => readonly string[];
  /** The code of a `--set` path that names nothing (default CLI_BAD_OPTION; a sweep says BACKTEST_INVALID_OPTION). */
  readonly setErrorCode?: ErrorCode;
}

/** Alias expansions a deployment file may use (anchors are for small repeated blocks, not bombs). */
const MAX_ALIAS_COUNT = 100;

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Reads and validates `file`. Throws CONFIG_UNREADABLE, CONFIG_FILE_TOO_LARGE, CONFIG_YAML_SYNTAX or CONFIG_INVALID. */
export function loadDeployment(file: string, options: LoadOptions = {}): LoadedDeployment {
  return parseDeployment(readDeploymentText(file), file, options);
}

/**
 * The text of `file`, reading at most `maxBytes + 1` bytes: a larger file (or an endless device such
 * as /dev/zero) is refused with CONFIG_FILE_TOO_LARGE without reading the rest.
 */
export function readDeploymentText(file: string, maxBytes: number = CONFIG_TEXT_LIMITS.fileBytes): string {
  const tooLarge = (): ChainpilotError =>
    new ChainpilotError(
      'CONFIG_FILE_TOO_LARGE',
      `deployment file ${file} is larger than ${maxBytes} bytes; a deployment file is a few KiB of YAML (is this the right file?)`,
      { retry: 'not_retryable', context: { file, maxBytes } },
    );
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const st = fstatSync(fd);
    if (st.isFile() && st.size > maxBytes) throw tooLarge();
    const buf = Buffer.allocUnsafe(maxBytes + 1);
    let n = 0;
    for (let got = -1; got !== 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, null);
    if (n > maxBytes) throw tooLarge();
    return buf.toString('utf8', 0, n);
  } catch (e) {
    if (isChainpilotError(e)) throw e;
    throw new ChainpilotError('CONFIG_UNREADABLE', `cannot read deployment file ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}; check the path`, {
      retry: 'not_retryable',
      context: { file },
    });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Validates YAML `text` as if read from `file`. Every failure is a coded error (never a stack trace). */
export function parseDeployment(text: string, file: string, options: LoadOptions = {}): LoadedDeployment {
  try {
    return parseChecked(text, file, options);
  } catch (e) {
    if (isChainpilotError(e)) throw e;
    // a bug or a limit of a library (stack depth, memory): still coded, still naming the file
    const what =
      e instanceof RangeError && /call stack/i.test(e.message)
        ? 'it is nested too deeply to read; a deployment needs only a few levels of nesting'
        : `it could not be read (${e instanceof Error ? `${e.name}: ${e.message}` : String(e)})`;
    throw new ChainpilotError('CONFIG_INVALID', `${file} has 1 error:\n  - ${file}:1:1 (top level): ${what}`, {
      retry: 'not_retryable',
      context: { file, errors: 1 },
      cause: e,
    });
  }
}

function parseChecked(text: string, file: string, options: LoadOptions): LoadedDeployment {
  const env = options.env ?? process.env;
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number): string => {
    const { line, col } = lineCounter.linePos(offset);
    return `${file}:${line}:${col}`;
  };
  if (doc.errors.length > 0) {
    const lines = doc.errors.map((e) => {
      const first = e.message.split('\n')[0] ?? '';
      // name the key: the parser says only "Map keys must be unique"
      const key = /^\s*("[^"\n]*"|'[^'\n]*'|[^:,{}\n]+?)\s*:/.exec(text.slice(e.pos[0]))?.[1]?.replace(/^["']|["']$/g, '');
      const what =
        e.code === 'DUPLICATE_KEY'
          ? `duplicate key "${key ?? '?'}": a key may appear once per mapping; keep one of them`
          : /call stack/i.test(first)
            ? 'nested too deeply to read; a deployment needs only a few levels of nesting'
            : first;
      return `  - ${at(e.pos[0])} ${what}`;
    });
    throw new ChainpilotError('CONFIG_YAML_SYNTAX', `${file} is not valid YAML:\n${lines.join('\n')}`, { retry: 'not_retryable', context: { file } });
  }
  const problems: string[] = [];
  const secrets: string[] = [];
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {};
  } catch (e) {
    // the yaml package throws a ReferenceError for an alias bomb ("billion laughs")
    throw new ChainpilotError(
      'CONFIG_YAML_SYNTAX',
      `${file} is not valid YAML:\n  - ${firstAlias(doc, at)} aliases expand too much (more than ${MAX_ALIAS_COUNT} expansions); write the values out instead of nesting aliases`,
      {
        retry: 'not_retryable',
        context: { file, reason: e instanceof Error ? e.name : 'error' },
      },
    );
  }
  const overridden = applyOverrides(doc, raw, options);
  // a problem in a value given with --set names the option, not a line of the file
  const locate = (path: readonly (string | number)[]): string =>
    overridden.find((o) => o.keys.length <= path.length && o.keys.every((k, i) => k === path[i]))?.where ?? locateIn(doc, path, at);
  // a value refused here (too long) is not described again by the schema
  const refused = new Set<string>();
  const substituted = substitute(raw, [], env, secrets, (path, msg) => {
    refused.add(keyPath(path));
    problems.push(`${locate(path)} ${keyPath(path)}: ${msg}`);
  });

  includeModelFile(substituted, file, locate, (msg) => problems.push(msg));
  // jitless: a deployment is parsed once, so zod's generated object parsers (new Function per object
  // shape, compiled on first use) cost more than they save (about 10 of the 40 ms of validating one)
  const result = deploymentSchema.safeParse(substituted, { jitless: true });
  if (!result.success) {
    for (const issue of result.error.issues) {
      if (!refused.has(keyPath(issue.path.filter((p): p is string | number => typeof p !== 'symbol')))) {
        problems.push(...describeIssue(issue, locate, substituted));
      }
    }
  }
  if (problems.length > 0 || !result.success) {
    if (options.strategyProblems) problems.push(...options.strategyProblems(substituted, locate));
    const n = problems.length;
    const lineOf = (p: string): number => Number(/^[^ ]*:(\d+):\d+ /.exec(p)?.[1] ?? 0);
    problems.sort((a, b) => lineOf(a) - lineOf(b));
    throw new ChainpilotError('CONFIG_INVALID', `${file} has ${n} error${n === 1 ? '' : 's'}:\n${problems.map((p) => `  - ${p}`).join('\n')}`, {
      retry: 'not_retryable',
      context: { file, errors: n },
    });
  }
  return { deployment: deepFreeze(result.data), file, secrets, locate, has: (path) => doc.hasIn(path) };
}

/** Sets each `--set` value in the document and in its plain copy `raw`; returns where each came from. */
function applyOverrides(doc: Document, raw: unknown, options: LoadOptions): { keys: (string | number)[]; where: string }[] {
  return (options.set ?? []).map((o) => {
    const keys = resolveSetPath(raw, o.path, options.strategyIds, options.setErrorCode);
    doc.setIn(keys, o.value);
    if (isRecord(raw)) setAt(raw, keys, o.value);
    return { keys, where: `--set ${o.path}` };
  });
}

/**
 * Reads `paper.modelFile` (relative to the deployment file) into `paper.model`, in place: the file is
 * `chainpilot calibrate`'s output (`paper:` / `model:`), a bare `model:` block or the model's fields.
 * A problem names the field, the file and the fix.
 */
function includeModelFile(raw: unknown, file: string, locate: (path: readonly (string | number)[]) => string, problem: (msg: string) => void): void {
  const paper = isRecord(raw) ? raw['paper'] : undefined;
  if (!isRecord(paper) || typeof paper['modelFile'] !== 'string' || paper['modelFile'].length === 0) return;
  const where = `${locate(['paper', 'modelFile'])} paper.modelFile`;
  if (paper['model'] !== undefined) {
    problem(`${where}: set either paper.model or paper.modelFile, not both; remove one of them`);
    return;
  }
  const path = resolve(dirname(file), paper['modelFile']);
  let text: string;
  try {
    text = readDeploymentText(path);
  } catch (e) {
    problem(`${where}: cannot read ${path} (${isChainpilotError(e) ? e.code : 'error'}); give the file chainpilot calibrate --out wrote, relative to ${file}`);
    return;
  }
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  let body: unknown;
  try {
    body = doc.errors.length === 0 ? doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) : undefined;
  } catch {
    body = undefined;
  }
  const inner = isRecord(body) && isRecord(body['paper']) ? body['paper']['model'] : isRecord(body) && 'model' in body ? body['model'] : body;
  if (!isRecord(inner)) {
    problem(`${where}: ${path} holds no paper.model block (expected YAML like "paper:\n  model:\n    latencyMs: [...]", as chainpilot calibrate --out writes)`);
    return;
  }
  paper['model'] = inner;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isSecretPath(path: readonly (string | number)[]): boolean {
  return SECRET_PATHS.some((p) => p.length === path.length && p.every((k, i) => k === path[i]));
}

function substitute(
  value: unknown,
  path: (string | number)[],
  env: Readonly<Record<string, string | undefined>>,
  secrets: string[],
  problem: (path: (string | number)[], msg: string) => void,
): unknown {
  if (typeof value === 'string') {
    if (value.length > CONFIG_TEXT_LIMITS.stringChars) {
      problem(path, `a string of ${value.length} characters; at most ${CONFIG_TEXT_LIMITS.stringChars} are allowed`);
      return '';
    }
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
    return Object.fromEntries(
      Object.entries(value).flatMap(([k, v]): [string, unknown][] => {
        if (k.length <= CONFIG_TEXT_LIMITS.stringChars) return [[k, substitute(v, [...path, k], env, secrets, problem)]];
        problem(path, `a key of ${k.length} characters; at most ${CONFIG_TEXT_LIMITS.stringChars} are allowed`);
        return [];
      }),
    );
  }
  return value;
}

/**
 * One zod issue as `file:line:col key.path: what is wrong; what is allowed`. `root` is the schema
 * that produced it and `prefix` where its input sits in the file (strategy params use both).
 */
export function describeIssue(
  issue: z.core.$ZodIssue,
  locate: (path: readonly (string | number)[]) => string,
  input: unknown,
  root: z.ZodType = deploymentSchema,
  prefix: readonly (string | number)[] = [],
): string[] {
  const rel = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  const path = [...prefix, ...rel];
  if (issue.code === 'unrecognized_keys') {
    const allowed = allowedKeysAt(root, rel);
    return issue.keys.map(
      (k) =>
        `${locate([...path, k])} ${keyPath([...path, k])}: unknown key ${JSON.stringify(k)}${allowed ? `${didYouMean(k, allowed)}; allowed here: ${allowed.length > 0 ? allowed.join(', ') : 'none'}` : ''}`,
    );
  }
  const where = path.length > 0 ? keyPath(path) : '(top level)';
  // a secret field's value is never echoed, even when it is of the wrong type
  const value = prefix.length === 0 && isSecretPath(path) ? '[REDACTED]' : valueAt(input, rel);
  const limit = prefix.length === 0 ? limitAt(path) : undefined;
  let msg = issue.message;
  msg = msg.replace(/^Invalid input: /, '');
  if (value === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_union')) msg = `required key is missing (${msg})`;
  else if (limit && issue.code !== 'custom') msg = `expected ${describeRange(limit)}; got ${formatValue(value)}`;
  else if (
    issue.code === 'invalid_value' ||
    issue.code === 'invalid_type' ||
    issue.code === 'invalid_union' ||
    issue.code === 'too_big' ||
    issue.code === 'too_small'
  ) {
    msg = `${msg.replace(/, received \w+$/, '')}; got ${formatValue(value)}`;
    if (issue.code === 'invalid_value' && typeof value === 'string') msg += didYouMean(value, issue.values.map(String));
  }
  return [`${locate(path)} ${where}: ${msg}`];
}

/** `risk.maxTradeSol`, `strategies.0.use`; a key with spaces, dots, quotes or line breaks is quoted, so one problem stays one line. */
export function keyPath(path: readonly (string | number)[]): string {
  return path.map((k) => (typeof k === 'number' || /^[\w$-]+$/.test(k) ? String(k) : JSON.stringify(k))).join('.');
}

/** A value as the user wrote it: strings quoted, NaN and Infinity by name, long values cut. */
export function formatValue(v: unknown): string {
  let text: string;
  if (typeof v === 'number' || typeof v === 'bigint') text = String(v);
  else if (v === undefined) text = 'nothing';
  else {
    try {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition, @typescript-eslint/no-base-to-string -- JSON.stringify returns undefined for a function or symbol (lib types say string)
      text = JSON.stringify(v) ?? String(v);
    } catch {
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- prints whatever value the YAML held
      text = String(v);
    }
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Where the first alias of the document is (for the alias-bomb message). */
function firstAlias(doc: Document, at: (offset: number) => string): string {
  let where: string | undefined;
  visit(doc, {
    Alias(_, node) {
      where = node.range ? at(node.range[0]) : undefined;
      return visit.BREAK;
    },
  });
  return where ?? at(0);
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
function allowedKeysAt(root: z.ZodType, path: readonly (string | number)[]): string[] | undefined {
  let s: unknown = root;
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
