/**
 * Backtest reports under the daemon's `--reports-dir`: `*.html` directly in it and
 * `<run>/report.html` one level down. A report is opened by its listed relative path only: the
 * request is matched against the listing, never joined onto the directory, so no path (`..`,
 * absolute, symlink out of the directory) can reach another file.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';

export interface ReportEntry {
  /** Relative path with `/` separators, e.g. `2026-11-23-momentum/report.html`. */
  readonly path: string;
  readonly sizeBytes: number;
  readonly modifiedAt: number;
}

const statIfFile = (p: string): Stats | undefined => {
  try {
    const st = lstatSync(p);
    return st.isFile() ? st : undefined;
  } catch {
    return undefined;
  }
};

/** Lists the reports, newest first; an absent directory lists nothing. */
export function listReports(dir: string): ReportEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: ReportEntry[] = [];
  const add = (rel: string): void => {
    const st = statIfFile(join(dir, rel));
    if (st) out.push({ path: rel.split(sep).join('/'), sizeBytes: st.size, modifiedAt: st.mtimeMs });
  };
  for (const name of names) {
    if (name.startsWith('.')) continue;
    if (name.endsWith('.html')) add(name);
    else {
      try {
        if (lstatSync(join(dir, name)).isDirectory()) add(join(name, 'report.html'));
      } catch {
        continue;
      }
    }
  }
  return out.sort((a, b) => b.modifiedAt - a.modifiedAt || a.path.localeCompare(b.path));
}

/** The bytes of a listed report, or undefined when `path` is not one of the listed reports. */
export function readReport(dir: string, path: string): Buffer | undefined {
  const entry = listReports(dir).find((r) => r.path === path);
  if (!entry) return undefined;
  const full = join(dir, ...entry.path.split('/'));
  const rel = relative(realpathSync(dir), realpathSync(full));
  if (rel.startsWith('..') || rel.includes(`..${sep}`)) return undefined;
  return readFileSync(full);
}
