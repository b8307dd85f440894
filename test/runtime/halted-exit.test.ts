/**
 * A strategy the error policy halts is said on the terminal when it happens, and the run exits
 * non-zero naming it (issue 41: it exited 0 with "strategy errors 10" in the summary).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/index.js';
import { runPaper } from '../../src/runtime/shell/run-paper.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-halted-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a halted strategy', () => {
  it('is printed when it halts and makes the paper run exit 1 with ENGINE_STRATEGY_HALTED', async () => {
    const file = join(dir, 'shaky.yaml');
    writeFileSync(
      file,
      [
        'version: 1',
        'name: shaky',
        'endpoints:',
        '  simulator: { seed: 5 }',
        'strategies:',
        `  - use: ${join(process.cwd(), 'test/e2e/fixtures/throw-on-launch.ts')}`,
        'engine: { haltAfterErrors: 3, errorWindow: 1h }',
        `telemetry: { logLevel: silent, decisionLog: ${join(dir, 'd.jsonl')} }`,
        '',
      ].join('\n'),
    );
    const printed: string[] = [];
    const ac = new AbortController();
    const r = await runPaper({
      file,
      speed: 'max',
      durationMs: 120_000, // a bound only: the run stops when the halt is printed
      signals: false,
      signal: ac.signal,
      log: silentLogger(),
      out: (t) => {
        printed.push(t);
        if (t.includes('ENGINE_STRATEGY_HALTED')) ac.abort();
      },
    });
    expect(printed.join('')).toMatch(/ENGINE_STRATEGY_HALTED: strategy throw-on-launch halted after 3 errors/);
    expect(r.exitCode).toBe(1);
    expect(r.problem).toMatch(/^ENGINE_STRATEGY_HALTED: strategy throw-on-launch halted/);
  }, 120_000);
});
