/**
 * `chainpilot daemon` as an operator runs it: a child process of bin/chainpilot.js. SIGHUP re-reads
 * the deployment files and prints the diff; `chainpilot status` and `chainpilot kill` speak to its
 * control API; SIGTERM drains every deployment and exits 0.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
let dir = '';
let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

/** Resolves with the first match of `re` in the child's stdout so far or to come. */
function expectOutput(c: ChildProcess, out: { text: string }, re: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const m = re.exec(out.text);
      if (m) {
        c.stdout?.off('data', check);
        clearTimeout(timer);
        resolve(m);
        return true;
      }
      return false;
    };
    const timer = setTimeout(() => reject(new Error(`no ${String(re)} in:\n${out.text}`)), timeoutMs);
    if (!check()) c.stdout?.on('data', check);
  });
}

const yaml = (name: string): string => readFileSync('config/daemon/paper-sim.yaml', 'utf8').replace('name: daemon-paper-sim', `name: ${name}`);

describe('chainpilot daemon (process)', () => {
  it('reloads on SIGHUP, answers status and kill from the CLI, and drains on SIGTERM with exit 0', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-daemon-cli-'));
    const cfg = join(dir, 'deployments');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(cfg);
    writeFileSync(join(cfg, 'one.yaml'), yaml('one'));
    const env = { ...process.env, CHAINPILOT_API_TOKEN: 'cli-test-token-0123456789' };
    child = spawn(process.execPath, ['bin/chainpilot.js', 'daemon', cfg, '--listen', '127.0.0.1:0', '--data-dir', join(dir, 'data'), '--log-level', 'warn'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = { text: '' };
    const err = { text: '' };
    child.stdout?.on('data', (b: Buffer) => (out.text += b.toString()));
    child.stderr?.on('data', (b: Buffer) => (err.text += b.toString()));
    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
    const url = (await expectOutput(child, out, /control API on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    expect(out.text).toContain('API token from $CHAINPILOT_API_TOKEN');
    expect(out.text).not.toContain(env.CHAINPILOT_API_TOKEN);

    writeFileSync(join(cfg, 'two.yaml'), yaml('two'));
    child.kill('SIGHUP');
    await expectOutput(child, out, /added: two/);

    const cli = async (args: string[]) => run(process.execPath, ['bin/chainpilot.js', ...args, '--url', url], { env, timeout: 60_000 });
    const status = await cli(['status']);
    expect(status.stdout).toMatch(/^DEPLOYMENT\s+MODE\s+STATE/m);
    expect(status.stdout).toMatch(/^one\s+paper\s+\w+/m);
    expect(status.stdout).toMatch(/^two\s+paper\s+\w+/m);
    // The shell registers the service-client, journal and queue series with the daemon's registry.
    const metrics = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${env.CHAINPILOT_API_TOKEN}` } })).text();
    for (const family of [
      'chainpilot_rpc_request_duration_seconds histogram',
      'chainpilot_http_retries_total counter',
      'chainpilot_journal_write_duration_seconds histogram',
      'chainpilot_queue_depth gauge',
      'chainpilot_event_to_intent_seconds histogram',
    ]) {
      expect(metrics).toContain(`# TYPE ${family}`);
    }
    const killed = await cli(['kill', 'two', '--reason', 'test']);
    expect(killed.stdout.trim()).toBe('two: killed');
    const refused = await run(process.execPath, ['bin/chainpilot.js', 'status', '--url', url], {
      env: { ...env, CHAINPILOT_API_TOKEN: 'wrong' },
      timeout: 60_000,
    }).catch((e: { code: number; stderr: string }) => e);
    expect('code' in refused ? refused.code : 0).toBe(1);
    expect('stderr' in refused ? refused.stderr : '').toMatch(/RUNTIME_API_UNAUTHORIZED: GET \/api\/deployments: HTTP 401: .*set CHAINPILOT_API_TOKEN/);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out.text).toContain('SIGTERM: draining every deployment');
    expect(out.text).toMatch(/one: shutdown:/);
    expect(out.text).toMatch(/two: shutdown:/);
    expect(err.text).not.toMatch(/"level":(50|60)/);
  }, 150_000);

  it('refuses a --notify file that writes a secret literally with `CODE: message` and no stack trace', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-daemon-cli-'));
    writeFileSync(join(dir, 'one.yaml'), yaml('one'));
    writeFileSync(join(dir, 'notify.yaml'), 'notify:\n  webhook:\n    url: http://127.0.0.1:9/hook\n    secret: written-in-the-file\n');
    const r = await run(
      process.execPath,
      ['bin/chainpilot.js', 'daemon', join(dir, 'one.yaml'), '--notify', join(dir, 'notify.yaml'), '--listen', '127.0.0.1:0', '--data-dir', join(dir, 'data')],
      { env: process.env, timeout: 60_000 },
    ).catch((e: { code: number; stderr: string }) => e);
    expect('code' in r ? r.code : 0).toBe(1);
    const stderr = 'stderr' in r ? r.stderr : '';
    expect(stderr).toMatch(/^CONFIG_INVALID: .*notify\.webhook\.url: write \$\{ENV_NAME\}/);
    expect(stderr).not.toMatch(/\n\s+at |RUNTIME_PROCESS_EXIT|Node\.js v/);
  }, 60_000);
});
