/**
 * README's live rehearsal as a new user types it, twice in a row (issue 29: the second run of the
 * day filled nothing, its journal holding the first run's day spend on a chain that no longer
 * existed). `wallet new`, then `run config/live-sim.yaml --live --duration 60s` two times from the
 * same directory: each run starts a fresh simulator chain with a fresh journal and says so, the
 * second names where the first one's journal went, both fill, and the summary counts every refusal
 * by code.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = resolve('bin/chainpilot.js');
const dir = mkdtempSync(join(tmpdir(), 'cp-rehearsal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [BIN, ...args], { cwd: dir, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: x.code ?? -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

/** The numbers of the run's summary line. */
const summaryOf = (stdout: string): { intents: number; fills: number } => {
  const m = /summary over [\d.]+ min: \d+ events \(\d+ bad frames\), (\d+) intents, (\d+) fills, \d+ denials, \d+ refused by the executor/.exec(stdout);
  expect(m, stdout).not.toBeNull();
  return { intents: Number(m![1]), fills: Number(m![2]) };
};

describe("README's live rehearsal", () => {
  it('runs twice in a row: each on a fresh chain with a fresh journal, both fill, no day cap reached', async () => {
    mkdirSync(join(dir, 'config'));
    copyFileSync('config/live-sim.yaml', join(dir, 'config/live-sim.yaml'));
    expect((await cli(['wallet', 'new', '--out', 'wallet.json'])).code).toBe(0);
    const journal = join(dir, 'config/data/live-sim.journal.sqlite');

    const first = await cli(['run', 'config/live-sim.yaml', '--live', '--duration', '60s']);
    expect(first.code, first.stderr.slice(-2_000)).toBe(0);
    expect(first.stdout).toMatch(
      new RegExp(`rehearsal on a fresh simulator chain \\(simulator-[0-9a-f]{12}\\) with a fresh journal at ${journal.replace(/[.]/g, '\\.')}\\n`),
    );
    expect(first.stdout).not.toContain('previous rehearsal');
    const a = summaryOf(first.stdout);
    expect(a.fills).toBeGreaterThan(0);

    const second = await cli(['run', 'config/live-sim.yaml', '--live', '--duration', '60s']);
    expect(second.code, second.stderr.slice(-2_000)).toBe(0);
    expect(second.stdout).toContain(`the previous rehearsal's journal was moved to ${journal}.previous`);
    expect(existsSync(`${journal}.previous`)).toBe(true);
    const b = summaryOf(second.stdout);
    expect(b.fills).toBeGreaterThan(0);
    // the shipped caps fit a 60 s rehearsal at its speed
    for (const run of [first.stdout, second.stdout]) expect(run).not.toContain('LIVE_SPEND_CAP_DAY');
    // every refusal is counted by code in the summary, the executor's too
    for (const run of [first.stdout, second.stdout]) {
      const refused = Number(/(\d+) refused by the executor/.exec(run)![1]);
      if (refused > 0) expect(run).toMatch(/\n {2}refusals by code: [A-Z_]+ \d+/);
    }
  }, 300_000);
});
