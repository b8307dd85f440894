/**
 * docs/configuration.md's limits table is the schema's: every numeric and duration key of the
 * deployment schema has a limit in CONFIG_LIMITS, every limit names a key of the schema, and the
 * table in the docs lists exactly those ranges.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI_LIMITS, CONFIG_LIMITS, deploymentJsonSchema, formatDuration, type NumericLimit } from '../../src/config/index.js';

interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
}

/** Dotted paths (`[]` for items) of every leaf that accepts a number, from the generated JSON Schema. */
function numericKeys(s: JsonSchema, path: string, out: string[]): string[] {
  if (s.properties) for (const [k, v] of Object.entries(s.properties)) numericKeys(v, path ? `${path}.${k}` : k, out);
  if (s.items) numericKeys(s.items, `${path}[]`, out);
  const types = [s, ...(s.anyOf ?? [])].flatMap((x) => x.type ?? []);
  if ((types.includes('number') || types.includes('integer')) && s.const === undefined) out.push(path);
  return out;
}

const bound = (l: NumericLimit, n: number): string => {
  const plain = Number.isSafeInteger(n) ? String(n) : n.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
  if (l.kind === 'duration') return formatDuration(n);
  if (l.kind === 'sol') return `${plain} SOL`;
  return plain;
};
const row = (key: string, l: NumericLimit): string => `| \`${key}\` | ${l.kind} | ${bound(l, l.min)} | ${bound(l, l.max)} |`;

describe('limits table', () => {
  it('covers every numeric and duration key of the schema, and nothing else', () => {
    const keys = numericKeys(deploymentJsonSchema() as JsonSchema, '', []).sort();
    expect(Object.keys(CONFIG_LIMITS).sort()).toEqual(keys);
  });

  it('is printed in docs/configuration.md exactly as in CONFIG_LIMITS and CLI_LIMITS', () => {
    const doc = readFileSync('docs/configuration.md', 'utf8');
    const section = (title: string): string[] => {
      const start = doc.indexOf(title);
      expect(start, title).toBeGreaterThan(-1);
      return doc
        .slice(start)
        .split('\n')
        .filter((l) => l.startsWith('| `'))
        .slice(0, title.includes('command') ? Object.keys(CLI_LIMITS).length : Object.keys(CONFIG_LIMITS).length);
    };
    expect(section('<!-- limits:config -->')).toEqual(Object.entries(CONFIG_LIMITS).map(([k, l]) => row(k, l)));
    expect(section('<!-- limits:command-line -->')).toEqual(Object.entries(CLI_LIMITS).map(([k, l]) => row(k, l)));
  });
});
