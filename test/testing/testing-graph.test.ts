/**
 * `chainpilot/testing` runs a strategy on the engine and the paper executor: like the strategy API
 * it must stay light (no native addon, no Solana SDK, no SQLite, no network client, no simulator,
 * runtime or live executor code). The module graph is read by bundling the entry with esbuild.
 */
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

async function inputsOf(entry: string): Promise<string[]> {
  const r = await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', write: false, metafile: true, logLevel: 'silent' });
  return Object.keys(r.metafile.inputs);
}

describe('the strategy test kit entry (chainpilot/testing)', () => {
  it('runs the real engine and paper executor and loads no native addon, Solana SDK, SQLite or network client', async () => {
    const inputs = await inputsOf('src/testing/index.ts');
    expect(inputs).toContain('src/engine/engine.ts');
    expect(inputs).toContain('src/executors/paper/paper-executor.ts');
    expect(
      inputs.filter((f) => /node_modules\/(@solana|litesvm|better-sqlite3|bigint-buffer|bullmq|ioredis|ws|undici)\//.test(f) || f.endsWith('.node')),
    ).toEqual([]);
    expect(
      inputs.filter((f) => /^src\/(sim|config|runtime|research|service|cli|client)\//.test(f) || /^src\/executors\/(?!paper\/|admission)/.test(f)),
    ).toEqual([]);
  });

  it('is what the package exports as chainpilot/testing', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, { import: string; types: string }> };
    expect(pkg.exports['./testing']?.import).toBe('./dist/testing/index.js');
    expect(pkg.exports['./testing']?.types).toBe('./dist/testing/index.d.ts');
  });
});
