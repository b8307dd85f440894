/**
 * The effective configuration as YAML: every default applied, SOL amounts back as decimal strings
 * under the keys users write (`risk.maxTradeSol`, not the runtime's `maxTradeLamports`),
 * secret fields replaced by [REDACTED]. What `chainpilot validate` prints.
 */
import { stringify } from 'yaml';
import { lamportsToSol, REDACTED } from '../core/index.js';
import { SECRET_PATHS, SOL_KEY_NAMES, type Deployment } from './schema.js';

/** `risk.maxTradeLamports` → `maxTradeSol`: the YAML key users write for each lamports field. */
const YAML_KEY_OF: ReadonlyMap<string, string> = new Map(
  Object.entries(SOL_KEY_NAMES).flatMap(([section, names]) => Object.entries(names).map(([yamlKey, name]) => [`${section}.${name}`, yamlKey] as const)),
);

function plain(v: unknown, path: string[]): unknown {
  if (typeof v === 'bigint') return lamportsToSol(v);
  if (typeof v === 'string' && SECRET_PATHS.some((p) => p.join('.') === path.join('.'))) return REDACTED;
  if (Array.isArray(v)) return v.map((x, i) => plain(x, [...path, String(i)]));
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [YAML_KEY_OF.get([...path, k].join('.')) ?? k, plain(x, [...path, k])]));
  }
  return v;
}

/** YAML text of the effective deployment with secrets redacted. */
export function effectiveConfigYaml(deployment: Deployment): string {
  return stringify(plain(deployment, []), { lineWidth: 0 });
}
