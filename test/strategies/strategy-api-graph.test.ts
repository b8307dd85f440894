/**
 * `chainpilot/strategy` is what a strategy file imports: it must stay light (no native addon, no
 * Solana SDK, no simulator, runtime or executor code), whatever the engine grows. The module graph
 * is read by bundling the entry with esbuild and listing every input it reached.
 */
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

async function inputsOf(entry: string): Promise<string[]> {
  const r = await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', write: false, metafile: true, logLevel: 'silent' });
  return Object.keys(r.metafile.inputs);
}

describe('the strategy API entry (chainpilot/strategy)', () => {
  it('loads no native addon, no Solana SDK and nothing of the simulator, executors, config, runtime or client', async () => {
    const inputs = await inputsOf('src/strategies/api.ts');
    expect(inputs).toContain('src/engine/strategy/strategy-api.ts');
    expect(
      inputs.filter((f) => /node_modules\/(@solana|litesvm|better-sqlite3|bigint-buffer|bullmq|ioredis|ws|undici|pino)\//.test(f) || f.endsWith('.node')),
    ).toEqual([]);
    expect(inputs.filter((f) => /^src\/(sim|executors|config|runtime|cli|client)\//.test(f))).toEqual([]);
  });

  it('is what the package exports as chainpilot/strategy', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, { import: string }> };
    expect(pkg.exports['./strategy']?.import).toBe('./dist/strategies/api.js');
  });
});
