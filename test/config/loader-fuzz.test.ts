/**
 * Standing fuzz test of the deployment loader (and the strategy resolver behind `validate`): the
 * shipped examples mutated value by value, line by line and byte by byte, and YAML generated from
 * arbitrary trees. Whatever the input, the outcome is a deployment or a coded CONFIG_* error whose
 * every problem names a line (and, for schema errors, a key), never an uncoded error and never a
 * stack trace. Fast profile in `npm test`, long under `npm run test:e2e` (test/helpers/fuzz.ts).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseDeployment } from '../../src/config/index.js';
import { isChainpilotError } from '../../src/core/index.js';
import { resolveStrategies } from '../../src/runtime/compose/resolve-strategies.js';
import { FUZZ_TIMEOUT_MS, fuzzParams } from '../helpers/fuzz.js';

const FILE = 'fuzz.yaml';
const EXAMPLES = ['config/paper-sim.yaml', 'config/live-sim.yaml', 'config/paper-remote.yaml'].map((f) => readFileSync(f, 'utf8'));
const ENV = { CHAIN_API_KEY: 'k-fuzz-123456', CHAIN_RPC_KEY: 'r-fuzz-123456', WALLET_KEY: 'w-fuzz' };

/** Scalars a hostile or careless user writes. */
const HOSTILE_SCALARS = [
  '0',
  '-1',
  '1e300',
  '-1e300',
  '1e-300',
  '.nan',
  '.inf',
  '-.inf',
  '100000.5',
  '"six"',
  'six',
  'fast',
  '""',
  "''",
  '~',
  'null',
  'true',
  'yes',
  '0x10',
  '0o17',
  '30d',
  '999999999999d',
  '"1e29"',
  '1e29',
  '[]',
  '{}',
  '[1, [2, [3]]]',
  '*nope',
  '&a 1',
  '!!binary aGVsbG8=',
  '!!js/function "x"',
  'constructor',
  '__proto__',
  'hasOwnProperty',
  '${HOME}',
  '${CHAIN_API_KEY}',
  "'\\u0000'",
  `"${'x'.repeat(5_000)}"`,
  '9007199254740993',
  '-0',
  '0.0000000001',
];
const HOSTILE_KEYS = ['constructor', '__proto__', 'prototype', 'toString', 'maxTradSize', '""', '? complex', '<<', 'use', 'params', 'exits'];

/** Replaces the value of the `k`-th `key: value` line with a hostile scalar. */
const replaceValue = (text: string, k: number, scalar: string): string => {
  const lines = text.split('\n');
  const candidates = lines.map((l, i) => [l, i] as const).filter(([l]) => /^\s*-?\s*[\w"]+:\s*\S/.test(l) && !l.trim().startsWith('#'));
  if (candidates.length === 0) return text;
  const [line, i] = candidates[k % candidates.length]!;
  lines[i] = line.replace(/:\s*\S.*$/, `: ${scalar}`);
  return lines.join('\n');
};

type Mutation = (text: string) => string;
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ k: fc.nat(), s: fc.constantFrom(...HOSTILE_SCALARS) }).map(
    ({ k, s }) =>
      (t: string) =>
        replaceValue(t, k, s),
  ),
  fc.record({ k: fc.nat(), s: fc.jsonValue({ maxDepth: 3 }) }).map(
    ({ k, s }) =>
      (t: string) =>
        replaceValue(t, k, JSON.stringify(s) ?? 'null'),
  ),
  fc.nat().map((k) => (t: string) => {
    const lines = t.split('\n');
    lines.splice(k % lines.length, 1);
    return lines.join('\n');
  }),
  fc.nat().map((k) => (t: string) => {
    const lines = t.split('\n');
    const i = k % lines.length;
    lines.splice(i, 0, lines[i]!); // a duplicated line: often a duplicate key
    return lines.join('\n');
  }),
  fc
    .record({ k: fc.nat(), key: fc.constantFrom(...HOSTILE_KEYS), indent: fc.constantFrom('', '  ', '    ', '      '), v: fc.constantFrom(...HOSTILE_SCALARS) })
    .map(({ k, key, indent, v }) => (t: string) => {
      const lines = t.split('\n');
      lines.splice(k % lines.length, 0, `${indent}${key}: ${v}`);
      return lines.join('\n');
    }),
  fc.record({ k: fc.nat(), s: fc.string({ maxLength: 8 }) }).map(
    ({ k, s }) =>
      (t: string) =>
        `${t.slice(0, k % t.length)}${s}${t.slice(k % t.length)}`,
  ),
  fc.nat().map((k) => (t: string) => t.slice(0, k % t.length)),
  fc.constantFrom<Mutation>(
    (t) => `${t}\nbomb: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n`,
    (t) => t.replace('strategies:', `strategies:\n  - use: graduation-sniper\n    params: ${'['.repeat(3_000)}${']'.repeat(3_000)}`),
    (t) => t.replace('risk:', 'risk: &r\n  maxTradeSol: "0.1"\nrisk2: *r\nrisk:'),
  ),
);

/** Inputs that once broke the loader: they run first on every fuzz run. */
const REGRESSIONS: [number, Mutation[]][] = [
  [0, [(t) => t.replace('- use: graduation-sniper', '- use: constructor')]], // issue 11: TypeError from the registry
  [0, [(t) => t.replace('- use: graduation-sniper', '- use: hasOwnProperty')]],
  [0, [(t) => `${t}\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n`]], // issue 11: ReferenceError
  // seed 1301 (long profile): a key with a line break split one problem over two lines
  [0, [(t) => `${t}\n"a\\nb": 1\n? { a: 1,\n    b: [2, 3] }\n: x\n`]],
];

/** Checks one outcome: a deployment, or a coded error whose every problem has a line (and a key for schema errors). */
async function checkOutcome(text: string): Promise<void> {
  let error: unknown;
  try {
    const loaded = parseDeployment(text, FILE, { env: ENV });
    await resolveStrategies(loaded);
    return;
  } catch (e) {
    error = e;
  }
  if (!isChainpilotError(error)) throw new Error(`uncoded ${String(error)}\n--- input ---\n${text.slice(0, 2_000)}`);
  expect(error.code, error.message).toMatch(/^(CONFIG_INVALID|CONFIG_YAML_SYNTAX|STRATEGY_LOAD_FAILED|STRATEGY_UNKNOWN|STRATEGY_INVALID_PARAMS)$/);
  expect(error.message).not.toMatch(/\n\s+at [^\n]+:\d+:\d+/); // no stack frame
  const problems = error.message.split('\n').slice(1);
  expect(problems.length, error.message).toBeGreaterThan(0);
  for (const p of problems) {
    if (error.code === 'CONFIG_YAML_SYNTAX') expect(p, error.message).toMatch(/^ {2}- fuzz\.yaml:\d+:\d+ \S/);
    else expect(p, error.message).toMatch(/^ {2}- fuzz\.yaml:\d+:\d+ \S.*?: \S/);
  }
}

describe('deployment loader under mutated and generated YAML (fuzz)', () => {
  it(
    'always answers with a deployment or a coded error naming line and key',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: EXAMPLES.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), async (which, mutations) => {
          await checkOutcome(mutations.reduce((t, m) => m(t), EXAMPLES[which]!));
        }),
        fuzzParams({ numRuns: 300, seed: 1301 }, REGRESSIONS),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'always answers with a deployment or a coded error for YAML generated from arbitrary trees',
    async () => {
      const scalar = fc.oneof(
        fc.double(),
        fc.integer(),
        fc.string({ maxLength: 12 }),
        fc.boolean(),
        fc.constant(null),
        fc.constantFrom('30d', '0', '1e300', 'max', 'graduation-sniper'),
      );
      const key = fc.constantFrom(
        'version',
        'name',
        'strategies',
        'use',
        'params',
        'risk',
        'paper',
        'telemetry',
        'statusInterval',
        'latency',
        'speed',
        'endpoints',
        'simulator',
        'exits',
        'timeStop',
        'constructor',
        '__proto__',
        'x',
      );
      const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
        tree: fc.oneof(
          { depthSize: 'small', withCrossShrink: true },
          scalar,
          fc.array(tie('tree'), { maxLength: 4 }),
          fc.dictionary(key, tie('tree'), { maxKeys: 5 }),
        ),
      }));
      await fc.assert(
        fc.asyncProperty(fc.dictionary(key, tree, { maxKeys: 8 }), fc.boolean(), async (doc, withBase) => {
          const base = withBase ? { version: 1, name: 'g', strategies: [{ use: 'graduation-sniper' }] } : {};
          await checkOutcome(stringify({ ...base, ...doc }));
        }),
        fuzzParams({ numRuns: 300, seed: 1302 }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
