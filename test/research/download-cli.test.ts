/**
 * `chainpilot download DEPLOYMENT --from --to --lists ...` against a service given by the
 * deployment's endpoints.remote (here the simulator's REST on 127.0.0.1): the recording names the
 * host only and holds no key; a download with no token selection is refused with its code.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, type UnixMs } from '../../src/core/index.js';
import { DEFAULT_SIM_START } from '../../src/research/record/record-sim.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-download-cli-'));
const API_KEY = 'k-download-cli-0123456789abcdef';
let sim: RunningSimulator;
const deployment = join(dir, 'remote.yaml');

beforeAll(async () => {
  const clock = manualClock(DEFAULT_SIM_START as UnixMs);
  sim = await startSimulator({ seed: 3, clock, startAt: DEFAULT_SIM_START as UnixMs, apiKey: API_KEY, services: [] });
  for (let t = 0; t < 5 * 60_000; t += 1_000) clock.advance(1_000);
  writeFileSync(
    deployment,
    [
      'version: 1',
      'name: remote-download',
      'endpoints:',
      '  remote:',
      `    baseUrl: ${sim.urls.base}`,
      `    datastreamUrl: ${sim.urls.datastream}`,
      '    apiKey: ${DOWNLOAD_KEY}',
      'strategies:',
      '  - use: graduation-sniper',
      '',
    ].join('\n'),
  );
}, 60_000);
afterAll(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI without blocking this process (the simulator answers from it). */
const cli = (...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/chainpilot.js', ...args],
      { encoding: 'utf8', timeout: 120_000, env: { ...process.env, DOWNLOAD_KEY: API_KEY } },
      (e, stdout, stderr) => resolve({ status: e ? (typeof e.code === 'number' ? e.code : null) : 0, stdout, stderr }),
    );
  });

describe('chainpilot download from a remote service', () => {
  it("downloads a window of the deployment's service into a recording that names the host and holds no key", async () => {
    const from = new Date(DEFAULT_SIM_START).toISOString();
    const to = new Date(DEFAULT_SIM_START + 5 * 60_000).toISOString();
    const r = await cli(
      'download',
      deployment,
      '--from',
      from,
      '--to',
      to,
      '--lists',
      'latest',
      '--max-tokens',
      '3',
      '--rate',
      '100',
      '--out',
      join(dir, 'out'),
    );
    expect(r.stderr).not.toContain('CLI_');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^downloaded 3 tokens: \d+ history rows in \d+ pages/);
    const files = readdirSync(join(dir, 'out')).filter((f) => f.endsWith('.jsonl.gz'));
    expect(files).toEqual(['download-20260101T000000Z.0000.jsonl.gz']);
    const text = gunzipSync(readFileSync(join(dir, 'out', files[0]!))).toString('utf8');
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as { endpoints: Record<string, string>; clock: string; source: string };
    expect(header).toMatchObject({ endpoints: { base: '127.0.0.1' }, clock: 'wall', source: 'download' });
    expect(text).not.toContain(API_KEY);
    expect(text).toContain('"room":"price:token:');
  }, 120_000);

  it('stops on Ctrl-C keeping what it fetched, and the same command resumes it', async () => {
    const args = ['bin/chainpilot.js', 'download', deployment, '--from', '0', '--to', String(DEFAULT_SIM_START + 300_000)];
    const rest = ['--lists', 'latest', '--max-tokens', '6', '--rate', '4', '--out', join(dir, 'sigint')];
    const child = spawn(process.execPath, [...args, ...rest], { env: { ...process.env, DOWNLOAD_KEY: API_KEY } });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // the proving event: the first token's first page is on disk
    const state = join(dir, 'sigint', '.download-partial', 'state.json');
    while (child.exitCode === null && !(existsSync(state) && readFileSync(state, 'utf8').includes('"pages":1'))) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    expect(stderr).toContain('RECORDING_DOWNLOAD_INTERRUPTED');
    expect(stderr).toContain('run the same command again to resume');
    const again = await cli(...args.slice(1), ...rest.slice(0, -4), '--rate', '100', '--out', join(dir, 'sigint'));
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/^downloaded 6 tokens \(resumed\)/);
  }, 120_000);

  it('refuses a download without tokens or lists, with its code', async () => {
    const r = await cli('download', deployment, '--from', '0', '--to', '1000', '--out', join(dir, 'none'));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('RECORDING_DOWNLOAD_INVALID');
  });
});
