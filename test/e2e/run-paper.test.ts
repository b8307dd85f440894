/**
 * The `paper` composition root as the CLI runs it: embedded simulator, Datastream client over a real
 * socket, status panel, bounded duration, summary, decision log file, and stop on abort.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/index.js';
import { runPaper } from '../../src/runtime/shell/run-paper.js';
import { startSimulator } from '../../src/sim/start-simulator.js';

describe('runPaper', () => {
  it('runs a deployment on the embedded simulator for a bounded time, prints status and a summary, and writes the decision log', async () => {
    const dir = mkdtempSync('/tmp/cp-paper-');
    const decisions = join(dir, 'decisions.jsonl');
    const yaml = readFileSync('config/paper-sim.yaml', 'utf8')
      .replace('./.chainpilot/paper-sim.decisions.jsonl', decisions)
      .replace('logLevel: warn', 'logLevel: silent\n  statusInterval: 500ms');
    const file = join(dir, 'paper.yaml');
    writeFileSync(file, yaml);
    const printed: string[] = [];
    const summary = await runPaper({ file, durationMs: 2_500, speed: 'max', seed: 5, out: (t) => printed.push(t), log: silentLogger() });
    const text = printed.join('');
    expect(text).toContain('chainpilot paper: paper-sim with graduation-sniper, curve-momentum on the embedded simulator (seed 5, max speed)');
    expect(text).toMatch(/events \d+ \(\d+\/s\)/);
    expect(text).toContain('summary over');
    expect(summary.events).toBeGreaterThan(100);
    const lines = readFileSync(decisions, 'utf8').trim().split('\n').filter(Boolean);
    expect(lines.length).toBe(summary.intents + summary.denials + summary.fills + lines.filter((l) => l.includes('"kind":"unfilled"')).length);
  });

  it('stops early when its signal aborts', async () => {
    const started = Date.now();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 800);
    const printed: string[] = [];
    const dir = mkdtempSync('/tmp/cp-paper-');
    const file = join(dir, 'paper.yaml');
    writeFileSync(file, readFileSync('config/paper-sim.yaml', 'utf8').replace(/\n {2}decisionLog: .*\n/, '\n'));
    await runPaper({ file, durationMs: 60_000, speed: 'max', out: (t) => printed.push(t), log: silentLogger(), signal: ac.signal });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(printed.join('')).toContain('summary over');
  });
});

describe('runPaper with remote endpoints', () => {
  it('trades on a remote Datastream with the key from the environment, and the key never reaches output or logs', async () => {
    const key = 'remote-secret-key-7f3a9c';
    const sim = await startSimulator({ seed: 9, speed: 'max', apiKey: key });
    try {
      const dir = mkdtempSync('/tmp/cp-paper-');
      const file = join(dir, 'remote.yaml');
      writeFileSync(
        file,
        [
          'version: 1',
          'name: remote-test',
          'endpoints:',
          '  remote:',
          `    baseUrl: ${sim.urls.base}`,
          `    datastreamUrl: ${sim.urls.datastream}`,
          '    apiKey: ${CHAIN_API_KEY}',
          'strategies:',
          '  - use: graduation-sniper',
          'telemetry:',
          '  logLevel: debug',
          '  statusInterval: 300ms',
          '',
        ].join('\n'),
      );
      const printed: string[] = [];
      const logged: string[] = [];
      const summary = await runPaper({
        file,
        durationMs: 2_000,
        env: { CHAIN_API_KEY: key },
        out: (t) => printed.push(t),
        logDestination: { write: (l: string) => void logged.push(l) },
      });
      expect(summary.events).toBeGreaterThan(0);
      expect(printed.join('')).toContain('on the remote service');
      expect(logged.length).toBeGreaterThan(0);
      expect(printed.join('') + logged.join('')).not.toContain(key);
    } finally {
      await sim.stop();
    }
  });
});
