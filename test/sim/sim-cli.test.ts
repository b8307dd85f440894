import { describe, expect, it } from 'vitest';
import { runSimulator } from '../../src/runtime/shell/sim-runtime.js';
import { buildProgram } from '../../src/cli/main.js';
import { waitFor } from './sim-helpers.js';

describe('chainpilot sim', () => {
  it('prints base, prediction and datastream URLs that answer, and stops when aborted', async () => {
    const lines: string[] = [];
    const ac = new AbortController();
    const done = runSimulator({ port: 0, seed: 4, speed: 50, apiKey: 'cli-key' }, (l) => lines.push(l), ac.signal);
    await waitFor(() => lines.length >= 3);
    const url = (name: string): string => lines.find((l) => l.startsWith(name))!.split(/\s+/)[1]!;
    expect(url('prediction')).toBe(`${url('base')}/prediction`);
    expect(url('datastream')).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/datastream$/);
    expect(lines.join('\n')).not.toContain('cli-key');
    const res = await fetch(`${url('base')}/tokens/latest`, { headers: { 'x-api-key': 'cli-key' } });
    expect(res.status).toBe(200);
    ac.abort();
    await done;
    await expect(fetch(`${url('base')}/tokens/latest`)).rejects.toThrow();
  });

  it('registers the sim command with its options and rejects a bad port', async () => {
    const program = buildProgram().exitOverride();
    const sim = program.commands.find((c) => c.name() === 'sim')!;
    expect(sim.options.map((o) => o.long)).toEqual(['--port', '--host', '--seed', '--speed', '--faults', '--api-key', '--fund', '--no-ledger']);
    sim.exitOverride().configureOutput({ writeErr: () => undefined });
    await expect(program.parseAsync(['node', 'chainpilot', 'sim', '--port', 'x'])).rejects.toThrow(/port/);
  });
});
