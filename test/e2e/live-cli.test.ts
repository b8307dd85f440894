/**
 * `chainpilot run` as a user types it: a child process of bin/chainpilot.js. Without `--live` it
 * refuses with the coded message and exit code 1; with `--live` on the simulator it trades a fresh
 * wallet made by `chainpilot wallet new` and prints the run's summary.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, ['bin/chainpilot.js', ...args], { timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: x.code ?? -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

describe('chainpilot run', () => {
  it('refuses without --live, then rehearses live mode with a wallet from `wallet new` when --live is given', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-live-cli-'));
    const walletPath = join(dir, 'wallet.json');
    const store = join(dir, 'journal.sqlite');
    const made = await cli(['wallet', 'new', '--out', walletPath]);
    expect(made.code).toBe(0);
    const address = /[1-9A-HJ-NP-Za-km-z]{32,44}/.exec(made.stdout)?.[0];
    const file = join(dir, 'live.yaml');
    writeFileSync(file, readFileSync('config/live-sim.yaml', 'utf8').replace('./wallet.json', walletPath).replace('./data/live-sim.journal.sqlite', store));

    const refused = await cli(['run', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('live mode refused: live trading needs the --live flag');

    const live = await cli(['run', file, '--live', '--duration', '3s', '--seed', '11']);
    expect(live.stderr).not.toMatch(/"level":(50|60)/); // warnings (rejected swaps) may appear, errors may not
    expect(live.code).toBe(0);
    expect(live.stdout).toContain(`wallet ${address} holds 10 SOL`);
    expect(live.stdout).toContain('summary over');
    expect(live.stdout).toMatch(new RegExp(`wallet ${address}: [\\d.]+ SOL on chain, portfolio cash [\\d.]+ SOL; 0 intent\\(s\\) left`));
    expect(live.stdout + live.stderr).not.toContain(readFileSync(walletPath, 'utf8'));
  }, 90_000);
});
