/**
 * `chainpilot --version` and `--help` must start fast (bench/startup.bench.ts): registering the
 * commands loads only commander and the option parsers; each command imports its implementation
 * when it runs. Checked on the static module graph of the CLI entry (esbuild, dynamic imports split
 * off into their own chunks).
 */
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** Source files and packages the entry loads before any command runs (static imports only). */
async function staticGraph(entry: string): Promise<{ files: string[]; packages: string[] }> {
  const r = await build({
    entryPoints: [entry],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    outdir: '/tmp/cp-lazy-graph',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs: Metafile['outputs'] = r.metafile.outputs;
  const start = Object.keys(outputs).find((o) => outputs[o]?.entryPoint === entry)!;
  const seen = new Set<string>([start]);
  const queue = [start];
  const packages = new Set<string>();
  while (queue.length > 0) {
    for (const imp of outputs[queue.pop()!]!.imports) {
      if (imp.kind !== 'import-statement') continue;
      if (imp.external) packages.add(imp.path);
      else if (!seen.has(imp.path)) {
        seen.add(imp.path);
        queue.push(imp.path);
      }
    }
  }
  return { files: [...seen].flatMap((o) => Object.keys(outputs[o]!.inputs)), packages: [...packages] };
}

describe('the chainpilot command', () => {
  it('registers its commands without loading any command implementation, zod, yaml, pino or a Solana SDK', async () => {
    // main.ts: the full program (for --help, --version, help): every command registered
    const { files, packages } = await staticGraph('src/cli/main.ts');
    expect(files).toContain('src/cli/commands/validate.ts');
    // config/limits.ts is a plain table (no zod): the option parsers name their allowed ranges from it.
    expect(
      files.filter(
        (f) => /^src\/(runtime\/(?!shell\/funding)|sim|engine|executors|config\/(?!limits\.ts$)|client|strategies)/.test(f) || f.endsWith('wallet-file.ts'),
      ),
    ).toEqual([]);
    expect(packages.filter((p) => !p.startsWith('node:')).sort()).toEqual(['commander']);
  });

  it("runs a command loading only that command's module (run-cli.ts): no other command, no full program", async () => {
    const { files, packages } = await staticGraph('src/cli/run-cli.ts');
    expect(files.filter((f) => f.startsWith('src/cli/commands/') || f === 'src/cli/main.ts')).toEqual([]);
    expect(packages.filter((p) => !p.startsWith('node:'))).toEqual(['commander']);
  });

  it('validates a deployment without loading the runtime, the simulator, the executors or a Solana SDK', async () => {
    // What `chainpilot validate` imports when it runs (src/cli/commands/validate.ts).
    const graphs = await Promise.all(['src/runtime/shell/validate-deployment.ts', 'src/runtime/shell/process-exit-guard.ts'].map((e) => staticGraph(e)));
    const files = graphs.flatMap((g) => g.files);
    const packages = graphs.flatMap((g) => g.packages);
    expect(files).toContain('src/runtime/compose/resolve-strategies.ts');
    expect(
      files.filter((f) =>
        /^src\/(sim|executors|client|runtime\/(handle\/create-deployment|shell\/run-shell|paper\/paper-deployment|live\/live-deployment|daemon))/.test(f),
      ),
    ).toEqual([]);
    expect(packages.filter((p) => /^(@solana|better-sqlite3|litesvm|ws|undici|fastify|bullmq|ioredis)/.test(p))).toEqual([]);
  });

  it('backtests and runs sweep cells without loading a Solana SDK (web3.js alone was a third of their module loading)', async () => {
    // What `chainpilot backtest` and a sweep worker thread import: the paper session, its executor and admission.
    const graphs = await Promise.all(['src/research/backtest/backtest-job.ts', 'src/research/backtest/sweep-worker.ts'].map((e) => staticGraph(e)));
    const files = graphs.flatMap((g) => g.files);
    const packages = graphs.flatMap((g) => g.packages);
    expect(files).toContain('src/executors/admission.ts');
    expect(packages.filter((p) => /^(@solana|ws|jayson|uuid|bs58|borsh)/.test(p))).toEqual([]);
  });
});
