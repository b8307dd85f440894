/**
 * Every example in docs/ and README.md is checked against the code:
 * - each ```ts block is the marked region of a file under test/docs/examples/ (named in a
 *   `<!-- checked: ... -->` line right above the block), which `npm run typecheck` compiles against
 *   the sources: an example that calls an API wrongly fails the typecheck;
 * - each ```yaml block that is a deployment fragment is merged into a shipped deployment and must
 *   pass `chainpilot validate` (schema, strategies, parameters);
 * - each `chainpilot` command line in a ```sh block names a real command and only its options;
 * - each metric name (`chainpilot_*`) the docs mention is registered by the source.
 * (docs/strategies.md's complete example is run in paper mode by strategy-docs.test.ts.)
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { parse, stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { validateDeploymentFile } from '../../src/runtime/shell/validate-deployment.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = [
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'README.md',
];
const text = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

interface Block {
  readonly file: string;
  readonly line: number;
  readonly lang: string;
  readonly body: string;
  readonly before: string;
}

/** Fenced blocks of `file` with their language, first line and the line right above the fence. */
function blocks(file: string): Block[] {
  const lines = text(file).split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end < 0) throw new Error(`${file}:${i + 1}: unclosed code fence`);
    out.push({ file, line: i + 1, lang: open[1]!, body: lines.slice(i + 1, end).join('\n'), before: lines[i - 1] ?? '' });
    i = end;
  }
  return out;
}
const ALL = DOCS.flatMap(blocks);

/** Package entry points as a user writes them, and the source file each one is built from. */
const ENTRIES: Readonly<Record<string, string>> = {
  chainpilot: '../../../src/index.js',
  'chainpilot/strategy': '../../../src/strategies/api.js',
  'chainpilot/sim': '../../../src/sim/index.js',
  'chainpilot/runtime': '../../../src/runtime/index.js',
  'chainpilot/testing': '../../../src/testing/index.js',
};
const REGION = /\/\/ #region doc\n([\s\S]*?)\n\/\/ #endregion doc/;

/** The example file's marked region, with its source imports written as the package's entry points. */
function region(path: string): string {
  const m = REGION.exec(text(path));
  if (!m) throw new Error(`${path}: no "// #region doc" ... "// #endregion doc" region`);
  let body = m[1]!;
  for (const [entry, src] of Object.entries(ENTRIES)) body = body.split(`'${src}'`).join(`'${entry}'`);
  return body;
}

describe('docs examples', () => {
  it('each TypeScript block is a checked example file that the typecheck compiles', () => {
    const ts = ALL.filter((b) => b.lang === 'ts' && !(b.file === 'docs/strategies.md' && b.body.includes("from 'chainpilot/strategy'")));
    expect(ts.length).toBeGreaterThan(5);
    const problems: string[] = [];
    for (const b of ts) {
      const m = /^<!-- checked: (test\/docs\/examples\/[\w.-]+\.ts) -->$/.exec(b.before);
      if (!m) problems.push(`${b.file}:${b.line}: no "<!-- checked: test/docs/examples/NAME.ts -->" line above the block`);
      else if (region(m[1]!) !== b.body) problems.push(`${b.file}:${b.line}: the block differs from the region of ${m[1]!}`);
    }
    expect(problems).toEqual([]);
  });

  describe('deployment fragments validate when merged into a shipped deployment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-doc-yaml-'));
    symlinkSync(join(ROOT, 'config', 'strategies'), join(dir, 'strategies'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const DEPLOYMENT_KEYS = ['strategies', 'risk', 'execution', 'record', 'notify', 'paper', 'feed', 'shutdown', 'store', 'endpoints', 'telemetry'];
    const fragments = ALL.filter((b) => b.lang === 'yaml')
      .map((b) => ({ b, doc: parse(b.body) as Record<string, unknown> }))
      .filter(({ doc }) => Object.keys(doc).every((k) => DEPLOYMENT_KEYS.includes(k)));

    it('finds the fragments', () => expect(fragments.length).toBeGreaterThanOrEqual(5));
    for (const { b, doc } of fragments) {
      it(`${b.file}:${b.line} (${Object.keys(doc).join(', ')})`, async () => {
        // live settings (execution:) go into the live rehearsal deployment, the rest into the paper one
        const base = parse(text(`config/${'execution' in doc ? 'live-sim' : 'paper-sim'}.yaml`)) as Record<string, unknown>;
        const merged = {
          ...base,
          ...Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, isObject(v) && isObject(base[k]) ? { ...base[k], ...v } : v])),
        };
        const file = join(dir, `example-${b.line}.yaml`);
        writeFileSync(file, stringify(merged));
        const env = Object.fromEntries(
          [...b.body.matchAll(/\$\{(\w+)\}/g)].map((m) => [
            m[1]!,
            m[1] === 'REDIS_URL' ? 'redis://127.0.0.1:6379' : m[1]!.includes('URL') ? 'https://hooks.example/x' : 'a-secret-of-enough-length-000',
          ]),
        );
        const result = await validateDeploymentFile(file, { ...process.env, ...env });
        expect(result.text).not.toMatch(/^[A-Z]+_[A-Z_]+: /);
        expect(result.ok).toBe(true);
      });
    }
  });

  it('each chainpilot command line names a real command and only its options', () => {
    const program = buildProgram();
    const problems: string[] = [];
    const lines = ALL.filter((b) => b.lang === 'sh').flatMap((b) =>
      b.body.split('\n').map((l, i) => ({ l: l.replace(/#.*$/, ''), at: `${b.file}:${b.line + 1 + i}` })),
    );
    let checked = 0;
    for (const { l, at } of lines) {
      const m = /(?:bin\/chainpilot\.js|npx chainpilot|^\s*chainpilot)\s+([^|&;]*)/.exec(l);
      if (!m) continue;
      const words = m[1]!.trim().split(/\s+/);
      let cmd: Command = program;
      while (words.length > 0 && !words[0]!.startsWith('-')) {
        const sub = cmd.commands.find((c) => c.name() === words[0]);
        if (!sub) break;
        cmd = sub;
        words.shift();
      }
      if (cmd === program && !words.some((w) => w === '--version' || w === '--help')) {
        problems.push(`${at}: no command "${words[0] ?? ''}"`);
        continue;
      }
      checked++;
      const known = new Set([
        '--help',
        '--version',
        ...cmd.options.flatMap((o) => [o.long, o.negate ? o.long : undefined].filter((x): x is string => x !== undefined)),
      ]);
      for (const w of m[1]!.split(/\s+/)) {
        const flag = /^(--[a-z][a-z-]*)/.exec(w)?.[1];
        if (flag !== undefined && !known.has(flag)) problems.push(`${at}: "${cmd.name()}" has no option ${flag}`);
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(problems).toEqual([]);
  });

  it('each metric the docs name is registered by the source', () => {
    const src = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => text(`src/${f}`))
      .join('\n');
    const registered = new Set([...src.matchAll(/['"`](chainpilot_[a-z0-9_]+)['"`]/g)].map((m) => m[1]!));
    const named = new Set(DOCS.flatMap((f) => [...text(f).matchAll(/\b(chainpilot_[a-z0-9_]+)/g)].map((m) => m[1]!)));
    const base = (n: string): string => n.replace(/_(bucket|sum|count)$/, '');
    expect(registered.size).toBeGreaterThan(10);
    // a name ending in `_` is a family (`chainpilot_queue_*`): some registered metric must start with it
    const known = (n: string): boolean => registered.has(n) || registered.has(base(n)) || (n.endsWith('_') && [...registered].some((r) => r.startsWith(n)));
    expect([...named].filter((n) => !known(n))).toEqual([]);
  });
});

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
