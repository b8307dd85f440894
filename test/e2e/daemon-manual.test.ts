/**
 * Manual actions on a real daemon, through the control API and the `chainpilot` CLI: force an
 * entry (through the risk gate: a denial answers with its code), close a share and then the rest of
 * the position, cancel an intent still in its paper latency. Each is journaled as a `manual`
 * decision with who and why, followed by the intent or denial it led to.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schemas from '../../src/service/api-schemas.js';
import type { RunningDaemon } from '../../src/service/daemon/run-daemon.js';
import type { SharedEndpoints } from '../../src/service/daemon/shared-endpoints.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';
import { startTestDaemon, stopTestDaemon } from '../helpers/daemon.js';
import { waitFor } from './support/wait-for.js';

const run = promisify(execFile);
const TOKEN = 'daemon-manual-token-abcdef0123456789';
let dir = '';
let daemon: RunningDaemon;
let endpoints: SharedEndpoints;
let sim: RunningSimulator;

const api = async (path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
  const res = await fetch(`${daemon.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as unknown };
};
const detail = async () => schemas.deploymentDetailBody.parse((await api('/api/deployments/hands')).body);
const decisions = async () => schemas.pageBody.parse((await api('/api/deployments/hands/decisions?limit=1000')).body).entries.map((e) => e.entry);
const cli = (args: string[]) =>
  run(process.execPath, ['bin/chainpilot.js', ...args, '--url', daemon.url], { env: { ...process.env, CHAINPILOT_API_TOKEN: TOKEN }, timeout: 60_000 });

/** `wait`, or its error with the decisions on `mint` and every unfilled outcome (those name no mint) appended: a timeout says what the deployment did. */
const explained = <T>(mint: string, wait: Promise<T>): Promise<T> =>
  wait.catch(async (e: unknown) => {
    const mine = (await decisions()).filter((d) => d['mint'] === mint || d['kind'] === 'unfilled');
    throw new Error(`${e instanceof Error ? e.message : String(e)}; decisions: ${JSON.stringify(mine)}`);
  });

/** A token of the simulator that is still on its curve and trading: the newest launch. */
async function liveMint(): Promise<string> {
  const res = await fetch(`${sim.urls.base}/tokens/latest`, { headers: { 'x-api-key': sim.apiKey } });
  const list = (await res.json()) as { token: { mint: string } }[];
  const mint = list[0]?.token.mint;
  if (!mint) throw new Error('the simulator listed no token');
  return mint;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cp-manual-'));
  // The newest launch can lose over half its price in the simulated minute that a paper latency of
  // one wall second is at speed 60 (a CLI close failed PAPER_SLIPPAGE_EXCEEDED at 28% of its
  // reference). These tests are about manual actions, not fills: a sell takes any price (10000 bps),
  // and a manual buy carries no reference price, so every intent here fills.
  sim = await startSimulator({ seed: 21, speed: 60 });
  writeFileSync(
    join(dir, 'hands.yaml'),
    `version: 1
name: hands
endpoints:
  remote:
    baseUrl: ${sim.urls.base}
    datastreamUrl: ${sim.urls.datastream}
    apiKey: \${REMOTE_KEY}
strategies:
  - use: ${join(process.cwd(), 'test/e2e/fixtures/idle-strategy.ts')}
risk: { maxTradeSol: "0.5" }
paper: { latency: 1s }
execution: { slippageBps: 10000 }
telemetry: { logLevel: silent }
`,
  );
  ({ daemon, endpoints } = await startTestDaemon({ dir, token: TOKEN, env: { REMOTE_KEY: sim.apiKey } }));
  await waitFor('hands ready', async () => ((await detail()).ready ? true : undefined));
}, 120_000);

afterAll(async () => {
  await stopTestDaemon({ daemon, endpoints });
  await sim?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('manual actions on a running daemon', () => {
  it('forces an entry through the risk gate, closes a share and the rest, and journals each with who and why (API)', async () => {
    const mint = await liveMint();
    const denied = await api('/api/deployments/hands/entries', { mint, spendLamports: '2000000000', reason: 'too big', by: 'alice' });
    expect(denied.status).toBe(409);
    expect(schemas.errorBody.parse(denied.body).error.code).toBe('RISK_TRADE_SIZE');
    const placed = await api('/api/deployments/hands/entries', { mint, spendLamports: '100000000', reason: 'conviction', by: 'alice' });
    expect(placed.status).toBe(200);
    const { intentId, waitsForPrice } = schemas.manualResultBody.parse(placed.body);
    // The deployment watches no room of its own (idle strategy): the answer says the buy waits for a price.
    expect(waitsForPrice).toBe(true);
    const opened = await explained(
      mint,
      waitFor('the forced buy to fill', async () => (await detail()).positions.find((p) => p.mint === mint), 60_000),
    );
    const full = BigInt(opened.tokenRaw);
    expect((await api('/api/deployments/hands/positions/close', { mint, fractionBps: 5_000, reason: 'take half', by: 'bob' })).status).toBe(200);
    await explained(
      mint,
      waitFor('half sold', async () => {
        const p = (await detail()).positions.find((x) => x.mint === mint);
        return p && BigInt(p.tokenRaw) === full - full / 2n ? p : undefined;
      }),
    );
    expect((await api('/api/deployments/hands/positions/close', { mint, reason: 'done', by: 'bob' })).status).toBe(200);
    await explained(
      mint,
      waitFor('position closed', async () => ((await detail()).positions.some((p) => p.mint === mint) ? undefined : true)),
    );
    const log = await decisions();
    const manual = log.filter((e) => e['kind'] === 'manual');
    expect(manual.map((e) => [e['action'], e['by'], e['why'], e['amount']])).toEqual([
      ['enter', 'alice', 'too big', '2000000000'],
      ['enter', 'alice', 'conviction', '100000000'],
      ['close', 'bob', 'take half', '5000'],
      ['close', 'bob', 'done', '10000'],
    ]);
    // Each manual decision is followed by what it led to: the denial, then the intents.
    const after = (i: number) => log[log.indexOf(manual[i]!) + 1];
    expect(after(0)).toMatchObject({ kind: 'denied', code: 'RISK_TRADE_SIZE', mint });
    expect(after(1)).toMatchObject({ kind: 'intent', intentId, side: 'buy', reason: 'manual enter by alice: conviction' });
    expect(after(2)).toMatchObject({ kind: 'intent', side: 'sell', reason: 'manual close by bob: take half' });
    expect(after(3)).toMatchObject({ kind: 'intent', side: 'sell' });
  }, 120_000);

  it('cancels an intent still in its latency, and refuses to close a position that does not exist, with a coded answer', async () => {
    const mint = await liveMint();
    const placed = schemas.manualResultBody.parse((await api('/api/deployments/hands/entries', { mint, spendLamports: '50000000', by: 'carol' })).body);
    const r = await api(`/api/deployments/hands/intents/${placed.intentId}/cancel`, { reason: 'changed my mind', by: 'carol' });
    expect(r.status).toBe(200);
    const ended = await waitFor('the cancelled intent to end', async () =>
      (await decisions()).find((e) => e['kind'] === 'unfilled' && e['intentId'] === placed.intentId),
    );
    expect(ended).toMatchObject({ code: 'ENGINE_INTENT_CANCELLED', outcome: 'rejected' });
    expect((await detail()).positions.some((p) => p.mint === mint)).toBe(false);
    const again = await api(`/api/deployments/hands/intents/${placed.intentId}/cancel`, {});
    expect(again.status).toBe(409);
    expect(schemas.errorBody.parse(again.body).error.code).toBe('ENGINE_MANUAL_REFUSED');
    const none = await api('/api/deployments/hands/positions/close', { mint: 'So11111111111111111111111111111111111111112' });
    expect(schemas.errorBody.parse(none.body).error).toMatchObject({ code: 'ENGINE_MANUAL_REFUSED', message: expect.stringContaining('no open position') });
    // a mint that is no address never reaches the deployment (it answered 200 with an intent id before issue 38)
    const path = await api('/api/deployments/hands/entries', { mint: '../../../etc/passwd', spendLamports: '50000000', by: 'carol' });
    expect(path.status).toBe(400);
    expect(schemas.errorBody.parse(path.body).error).toMatchObject({
      code: 'RUNTIME_API_BAD_REQUEST',
      message: expect.stringMatching(/^mint: mint must be a token mint address/),
    });
    expect((await decisions()).some((e) => JSON.stringify(e).includes('passwd'))).toBe(false);
  }, 60_000);

  it('does the same from the CLI: enter, close, and a refused cancel that prints the code and exits non-zero', async () => {
    const mint = await liveMint();
    const entered = await cli(['enter', 'hands', mint, '--sol', '0.1', '--reason', 'from the shell', '--by', 'dave']);
    expect(entered.stdout).toMatch(/^hands: buy of \S+ placed as intent \S+/);
    expect(entered.stdout).toContain(`hands: no price of ${mint} observed yet: joined its price room; the fill waits for the first price`);
    await explained(
      mint,
      waitFor('the CLI buy to fill', async () => (await detail()).positions.find((p) => p.mint === mint), 60_000),
    );
    const closed = await cli(['close', 'hands', mint, '--share-bps', '10000', '--reason', 'flat', '--by', 'dave']);
    expect(closed.stdout).toMatch(/close of \S+ placed as intent/);
    await explained(
      mint,
      waitFor('the CLI close to fill', async () => ((await detail()).positions.some((p) => p.mint === mint) ? undefined : true), 60_000),
    );
    const refused = await cli(['cancel', 'hands', 'int_nope']).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(refused?.code).not.toBe(0);
    expect(refused?.stderr).toMatch(/ENGINE_MANUAL_REFUSED: .*HTTP 409: intent int_nope is not waiting/);
    const manual = (await decisions()).filter((e) => e['kind'] === 'manual' && e['by'] === 'dave');
    expect(manual.map((e) => e['action'])).toEqual(['enter', 'close']);
  }, 120_000);

  it('answers a forced buy of a token that has no price feed as waiting for a price, and reports PAPER_NO_PRICE when none comes', async () => {
    const mint = '6HBFLwtGL7kBuEyXabENC5TeEvxJnWqtqbSgTWhsb6ab'; // 'NoPriceMint' in 32 bytes: an address no market trades
    const placed = await api('/api/deployments/hands/entries', { mint, spendLamports: '10000000', by: 'erin' });
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    const { intentId, waitsForPrice } = schemas.manualResultBody.parse(placed.body);
    expect(waitsForPrice).toBe(true);
    // It waits in its price room (joined on placement) for 10 s of run clock, then is rejected with the code.
    const ended = await waitFor(
      'the unpriced buy to end',
      async () => (await decisions()).find((e) => e['kind'] === 'unfilled' && e['intentId'] === intentId),
      60_000,
    );
    expect(ended).toMatchObject({ outcome: 'rejected', code: 'PAPER_NO_PRICE', reason: expect.stringContaining('waited') as string });
  }, 90_000);

  it('shows the effective configuration with every default applied and the API key redacted', async () => {
    const c = schemas.configBody.parse((await api('/api/deployments/hands/config')).body);
    expect(c.yaml).toMatch(/maxTradeSol: "?0\.5"?/);
    expect(c.yaml).toContain('slippageBps: 10000');
    expect(c.yaml).toContain('[REDACTED]');
    expect(c.yaml).not.toContain(sim.apiKey);
  });
});
