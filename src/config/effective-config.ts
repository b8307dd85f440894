/**
 * The effective configuration as YAML: every default applied, SOL amounts back as decimal strings,
 * secret fields replaced by [REDACTED]. What `chainpilot validate` prints.
 */
import { stringify } from 'yaml';
import { lamportsToSol, REDACTED } from '../core/index.js';
import { SECRET_PATHS, type Deployment } from './schema.js';

function plain(v: unknown, path: string[]): unknown {
  if (typeof v === 'bigint') return lamportsToSol(v);
  if (typeof v === 'string' && SECRET_PATHS.some((p) => p.join('.') === path.join('.'))) return REDACTED;
  if (Array.isArray(v)) return v.map((x, i) => plain(x, [...path, String(i)]));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x, [...path, k])]));
  return v;
}

/** YAML text of the effective deployment with secrets redacted. */
export function effectiveConfigYaml(deployment: Deployment): string {
  return stringify(plain(deployment, []), { lineWidth: 0 });
}
