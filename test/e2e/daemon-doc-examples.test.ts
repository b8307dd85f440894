/**
 * The manual-action examples of docs/daemon.md ("Control API") run as printed against a daemon
 * started from the shipped `config/daemon/`, as an operator would: `enter` (two strategies run
 * there, so it names one), `cancel` of the intent it printed (the shipped file holds operator
 * intents for `paper.manualHold`), and `close` of an open position. A risk denial prints its own
 * code and hint.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schemas from '../../src/service/api-schemas.js';
import { waitFor } from './support/wait-for.js';

const run = promisify(execFile);
const TOKEN = 'doc-examples-token-0123456789abcdef';
const env = { ...process.env, CHAINPILOT_API_TOKEN: TOKEN };
/** A mint no strategy of the shipped file trades: no cooldown, no price (the buy waits for one). */
const MINT = 'DocExampLeMint11111111111111111111111111111';
let dir = '';
let child: ChildProcess | undefined;
let url = '';

/** The docs' example lines, split into arguments as a shell would (double quotes only). */
function docExamples(): string[][] {
  const doc = readFileSync('docs/daemon.md', 'utf8');
  const block = /```sh\n((?:node bin\/chainpilot\.js (?:enter|close|cancel) [^\n]*\n)+)```/.exec(doc)?.[1];
  if (!block) throw new Error('docs/daemon.md has no block of manual-action examples');
  return block
    .trim()
    .split('\n')
    .map((line) => [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? ''));
}

const api = async (path: string): Promise<unknown> => (await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json();
/** Runs a command line (without its leading `node`) with the daemon's --url. */
const cli = (args: readonly string[]) => run(process.execPath, [...args, '--url', url], { env, timeout: 60_000 });
/** A docs line, `node` dropped and its placeholders filled. */
const filled = (line: readonly string[], values: Readonly<Record<string, string>>): string[] => line.slice(1).map((a) => values[a] ?? a);
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: { code: number; stderr: string }) => e,
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cp-doc-examples-'));
  child = spawn(
    process.execPath,
    ['bin/chainpilot.js', 'daemon', 'config/daemon', '--listen', '127.0.0.1:0', '--data-dir', join(dir, 'data'), '--log-level', 'warn'],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.resume();
  url = await waitFor('the control API address', () => /control API on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1], 60_000);
  await waitFor('daemon-paper-sim ready', async () =>
    schemas.deploymentDetailBody.parse(await api('/api/deployments/daemon-paper-sim')).ready ? true : undefined,
  );
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe("docs/daemon.md's manual-action examples on the shipped daemon config", () => {
  it('enter places a buy, cancel catches it in its manual hold, close sells half of an open position', async () => {
    const [enter, cancel, close] = docExamples();
    expect(enter?.slice(2, 4)).toEqual(['enter', 'daemon-paper-sim']);
    expect(cancel?.[2]).toBe('cancel');
    expect(close?.[2]).toBe('close');

    const entered = await cli(filled(enter!, { MINT }));
    const intentId = /placed as intent (\S+)/.exec(entered.stdout)?.[1] ?? '';
    expect(intentId).toMatch(/^int_/);
    expect(entered.stdout).toContain('waits for the first price');

    const cancelled = await cli(filled(cancel!, { INTENT: intentId }));
    expect(cancelled.stdout.trim()).toBe(`daemon-paper-sim: intent ${intentId} cancelled`);
    const decisions = async () => schemas.pageBody.parse(await api('/api/deployments/daemon-paper-sim/decisions?limit=1000')).entries.map((e) => e.entry);
    expect(
      await waitFor('the cancel to be reported', async () => (await decisions()).find((e) => e['kind'] === 'unfilled' && e['intentId'] === intentId)),
    ).toMatchObject({
      code: 'ENGINE_INTENT_CANCELLED',
    });

    // close: a position a strategy holds now (one may close by its exit rules before the command lands: take the next)
    let closed: string | undefined;
    for (let attempt = 0; attempt < 10 && closed === undefined; attempt++) {
      const held = await waitFor(
        'an open position',
        async () => schemas.deploymentDetailBody.parse(await api('/api/deployments/daemon-paper-sim')).positions.find((p) => BigInt(p.tokenRaw) > 0n),
        120_000,
      );
      const r = await cli(filled(close!, { HELD: held.mint })).catch((e: { stderr: string }) => {
        if (/ENGINE_MANUAL_REFUSED: .*(holds no|no open position)/.test(e.stderr)) return undefined;
        throw e;
      });
      closed = r?.stdout;
    }
    expect(closed).toMatch(/^daemon-paper-sim: close of \S+ placed as intent int_/);
  }, 300_000);

  it("prints a risk denial with the gate's code and its hint, not a token hint", async () => {
    const refused = await failure(cli(['bin/chainpilot.js', 'enter', 'daemon-paper-sim', MINT, '--sol', '5', '--strategy', 'curve-momentum']));
    expect(refused?.code).toBe(1);
    expect(refused?.stderr).toMatch(/^RISK_TRADE_SIZE: POST \/api\/deployments\/daemon-paper-sim\/entries: HTTP 409: buy of 5000000000 lamports exceeds/m);
    expect(refused?.stderr).toMatch(/^hint: denial: the buy exceeds the per-trade size limit/m);
    expect(refused?.stderr).not.toContain('wrong token');
  }, 60_000);
});
