/**
 * The parameter grid of a sweep: `--set 'strategies[curve-momentum].params.milestonePct=40,50,60'`
 * names a path in the deployment file (`strategies[ID]` picks the strategy by id, or by `use` when
 * it has no id; `[N]` picks by position) and its values; the cells are every combination, in a
 * fixed order. Each cell is the deployment file with those values set, validated like any file.
 */
import { parse, stringify } from 'yaml';
import { ChainpilotError } from '../../core/index.js';
import { parseDeployment, type LoadedDeployment } from '../../config/index.js';

export interface SweepAxis {
  readonly path: string;
  readonly values: readonly (string | number | boolean)[];
}

export interface SweepCell {
  readonly index: number;
  readonly params: Readonly<Record<string, string | number | boolean>>;
}

const bad = (msg: string): ChainpilotError => new ChainpilotError('BACKTEST_INVALID_OPTION', msg, { retry: 'not_retryable', context: { field: 'set' } });

function scalar(v: string): string | number | boolean {
  const t = v.trim();
  if (t === 'true' || t === 'false') return t === 'true';
  if (/^-?\d+(\.\d+)?$/.test(t) && !/^-?0\d/.test(t)) return Number(t);
  return t.replace(/^["']|["']$/g, '');
}

/** Parses one `--set PATH=V1,V2,...`. */
export function parseSetOption(spec: string): SweepAxis {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw bad(`--set ${spec}: expected PATH=V1,V2,... such as strategies[curve-momentum].params.milestonePct=40,50,60`);
  const path = spec.slice(0, eq).trim();
  const values = spec
    .slice(eq + 1)
    .split(',')
    .filter((v) => v.trim().length > 0)
    .map(scalar);
  if (values.length === 0) throw bad(`--set ${path}: give at least one value`);
  return { path, values };
}

/** How many cells the grid of `axes` has. */
export function gridSize(axes: readonly SweepAxis[]): number {
  return axes.reduce((n, a) => n * a.values.length, 1);
}

/** Cell `index` of the grid (first axis slowest), without building the others. */
export function cellAt(axes: readonly SweepAxis[], index: number): SweepCell {
  const params: Record<string, string | number | boolean> = {};
  let rest = index;
  for (let i = axes.length - 1; i >= 0; i--) {
    const a = axes[i]!;
    params[a.path] = a.values[rest % a.values.length]!;
    rest = Math.floor(rest / a.values.length);
  }
  const ordered: Record<string, string | number | boolean> = {};
  for (const a of axes) ordered[a.path] = params[a.path]!;
  return { index, params: ordered };
}

/** Every combination of the axes' values (the first axis varies slowest). */
export function gridCells(axes: readonly SweepAxis[]): SweepCell[] {
  let cells: Record<string, string | number | boolean>[] = [{}];
  for (const a of axes) cells = cells.flatMap((c) => a.values.map((v) => ({ ...c, [a.path]: v })));
  return cells.map((params, index) => ({ index, params }));
}

type Node = Record<string, unknown> | unknown[];

function setPath(root: Record<string, unknown>, path: string): (v: unknown) => void {
  const parts = path.match(/[^.[\]]+|\[[^\]]*\]/g) ?? [];
  let node: Node = root;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const last = i === parts.length - 1;
    let key: string | number;
    if (part.startsWith('[')) {
      const inner = part.slice(1, -1);
      if (!Array.isArray(node)) throw bad(`--set ${path}: ${part} selects from a list, but this is not one`);
      const list: unknown[] = node;
      key = /^\d+$/.test(inner)
        ? Number(inner)
        : list.findIndex((s) => {
            const o = s as { id?: unknown; use?: unknown };
            return o.id === inner || (o.id === undefined && o.use === inner);
          });
      if (key < 0 || key >= list.length)
        throw bad(`--set ${path}: no entry ${part} in the deployment (strategies are picked by id, or by use when they have no id)`);
    } else key = part;
    if (last) {
      const target = node as Record<string | number, unknown>;
      return (v) => void (target[key] = v);
    }
    const holder = node as Record<string | number, unknown>;
    let next = holder[key];
    if (next === undefined || next === null) {
      next = {};
      holder[key] = next;
    }
    if (typeof next !== 'object') throw bad(`--set ${path}: ${String(key)} is a value, not a section`);
    node = next as Node;
  }
  throw bad(`--set ${path}: empty path`);
}

/** The deployment of `cell`: the file's text with the cell's values set, validated. */
export function cellDeployment(fileText: string, file: string, cell: SweepCell, env?: Readonly<Record<string, string | undefined>>): LoadedDeployment {
  const doc = parse(fileText) as Record<string, unknown>;
  for (const [path, v] of Object.entries(cell.params)) setPath(doc, path)(v);
  return parseDeployment(stringify(doc), file, env ? { env } : {});
}
