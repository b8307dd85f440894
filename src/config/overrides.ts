/**
 * `--set PATH=VALUE`: a value given on the command line in place of (or in addition to) the one in
 * the deployment file, e.g. `--set risk.maxOpenPositions=2` or
 * `--set 'strategies[dip-buyer].params.dropPct=30'`. `strategies[ID]` picks a strategy by its `id:`,
 * else by the strategy's own id (the id its definition declares, when the caller knows it), else by
 * `use:`; `[N]` picks by position. `paper` and `backtest` take one value per path; `sweep` takes a
 * list per path (sweep-grid.ts) and resolves each cell's paths here.
 */
import { ChainpilotError, type ErrorCode } from '../core/index.js';

export type SetValue = string | number | boolean;

export interface SetOverride {
  readonly path: string;
  readonly value: SetValue;
}

/**
 * The strategy ids of the deployment's `strategies:` entries, by position: the entry's `id:`, or
 * the id of the definition it `use`s (undefined where it is not known).
 */
export type StrategyIds = readonly (string | undefined)[];

/** `"40"` as 40, `"true"` as true, `"'x'"` as "x"; a leading zero keeps the text ("007" is not 7). */
export function parseSetScalar(v: string): SetValue {
  const t = v.trim();
  if (t === 'true' || t === 'false') return t === 'true';
  if (/^-?\d+(\.\d+)?$/.test(t) && !/^-?0\d/.test(t)) return Number(t);
  return t.replace(/^["']|["']$/g, '');
}

/** Parses one `--set PATH=VALUE` (the whole text after the first `=` is the value). */
export function parseSetAssignment(spec: string, code: ErrorCode = 'CLI_BAD_OPTION'): SetOverride {
  const eq = spec.indexOf('=');
  const path = eq > 0 ? spec.slice(0, eq).trim() : '';
  if (path === '') throw setError(code, `--set ${spec}: expected PATH=VALUE such as risk.maxOpenPositions=2 or strategies[dip-buyer].params.dropPct=30`);
  const raw = spec.slice(eq + 1);
  if (raw.trim() === '') throw setError(code, `--set ${path}: give a value after =`);
  return { path, value: parseSetScalar(raw) };
}

function setError(code: ErrorCode, message: string): ChainpilotError {
  return new ChainpilotError(code, message, { retry: 'not_retryable', context: { field: 'set' } });
}

/** Whether some path picks a list entry by name (only those need the strategies' own ids). */
export function picksByName(paths: readonly string[]): boolean {
  return paths.some((p) => /\[[^\]]*[^\d\]][^\]]*\]/.test(p));
}

/**
 * The keys `path` names in `root` (the deployment as plain data), list selectors resolved to
 * positions. Keys past the existing data are kept as written (setting them creates sections).
 */
export function resolveSetPath(root: unknown, path: string, ids: StrategyIds = [], code: ErrorCode = 'CLI_BAD_OPTION'): (string | number)[] {
  const parts = path.match(/[^.[\]]+|\[[^\]]*\]/g) ?? [];
  if (parts.length === 0) throw setError(code, `--set ${path}: empty path`);
  const keys: (string | number)[] = [];
  let node: unknown = root;
  for (const [i, part] of parts.entries()) {
    let key: string | number = Array.isArray(node) && /^\d+$/.test(part) ? Number(part) : part;
    if (part.startsWith('[')) {
      const inner = part.slice(1, -1);
      if (!Array.isArray(node)) throw setError(code, `--set ${path}: ${part} selects from a list, but ${keys.join('.') || 'the top level'} is not one`);
      const list: readonly unknown[] = node;
      key = /^\d+$/.test(inner) ? Number(inner) : pickByName(list, inner, keys.length === 1 && keys[0] === 'strategies' ? ids : []);
      if (key < 0 || key >= list.length) {
        const known = list.map((s, j) => nameOf(s, ids[j])).filter((n): n is string => n !== undefined);
        throw setError(
          code,
          `--set ${path}: no entry ${part} in the deployment (strategies are picked by id, by the strategy's own id, by use, or by position [0]${known.length > 0 ? `; here: ${known.join(', ')}` : ''})`,
        );
      }
    } else if (node !== undefined && node !== null && (typeof node !== 'object' || (Array.isArray(node) && typeof key !== 'number'))) {
      throw setError(code, `--set ${path}: ${keys.join('.')} is a value, not a section`);
    }
    keys.push(key);
    if (i < parts.length - 1) node = node === undefined || node === null ? undefined : (node as Record<string | number, unknown>)[key];
  }
  return keys;
}

function pickByName(list: readonly unknown[], name: string, ids: StrategyIds): number {
  const own = (s: unknown): { id?: unknown; use?: unknown } => (typeof s === 'object' && s !== null ? s : {});
  const byId = list.findIndex((s) => own(s).id === name);
  if (byId >= 0) return byId;
  const byOwnId = list.findIndex((s, j) => own(s).id === undefined && ids[j] === name);
  if (byOwnId >= 0) return byOwnId;
  return list.findIndex((s) => own(s).id === undefined && own(s).use === name);
}

function nameOf(s: unknown, ownId: string | undefined): string | undefined {
  const o = typeof s === 'object' && s !== null ? (s as { id?: unknown; use?: unknown }) : {};
  if (typeof o.id === 'string') return o.id;
  return ownId ?? (typeof o.use === 'string' ? o.use : undefined);
}

/** Sets `value` at `keys` in plain data, creating the sections on the way. */
export function setAt(root: Record<string, unknown>, keys: readonly (string | number)[], value: unknown): void {
  let node = root as Record<string | number, unknown>;
  for (const [i, key] of keys.entries()) {
    if (i === keys.length - 1) {
      node[key] = value;
      return;
    }
    let next = node[key];
    if (next === undefined || next === null) {
      next = {};
      node[key] = next;
    }
    node = next as Record<string | number, unknown>;
  }
}
