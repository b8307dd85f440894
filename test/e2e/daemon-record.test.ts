/**
 * `record:` under `chainpilot daemon`: two paper deployments on one shared simulator connection
 * each write their own recording, holding the frames of the rooms that deployment joined and none
 * of the rooms only the other one joined; a deployment on the remote service (reached with an API
 * key) records without the key; a backtest of one deployment's recording reproduces its decision
 * log, through an operator's pause and resume (kept in the recording as control marks).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRecordingFiles } from '../../src/research/replay/recording-reader.js';
import { runBacktestJob } from '../../src/research/backtest/backtest-job.js';
import type { RunningDaemon } from '../../src/service/daemon/run-daemon.js';
import type { SharedEndpoints } from '../../src/service/daemon/shared-endpoints.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';
import { startTestDaemon, stopTestDaemon } from '../helpers/daemon.js';
import { MOMENTUM_STRATEGY, SNIPER_STRATEGY } from '../helpers/paper-yaml.js';
import { waitFor } from './support/wait-for.js';

let dir = '';
let daemon: RunningDaemon | undefined;
let endpoints: SharedEndpoints | undefined;
let remoteSim: RunningSimulator | undefined;
const TOKEN = 'daemon-record-token-0123456789abcdef';

const yaml = (name: string, strategy: string, endpoint: string): string => `version: 1
name: ${name}
${endpoint}
strategies:
${strategy}
risk: { maxTradeSol: "0.5", maxOpenPositions: 20, maxExposureSol: "5" }
telemetry: { logLevel: silent, decisionLog: ${join(dir, `${name}.decisions.jsonl`)} }
record: { dir: ${join(dir, `rec-${name}`)} }
`;
const SIM = 'endpoints:\n  simulator: { seed: 42, speed: 120 }';
const MOMENTUM = MOMENTUM_STRATEGY;
const SNIPER = SNIPER_STRATEGY;

const recordingOf = (name: string): string =>
  resolveRecordingFiles(join(dir, `rec-${name}`))
    .map((f) => gunzipSync(readFileSync(f)).toString('utf8'))
    .join('');
const logOf = (name: string): string => {
  try {
    return readFileSync(join(dir, `${name}.decisions.jsonl`), 'utf8');
  } catch {
    return '';
  }
};
const roomsOf = (text: string): Set<string> => new Set([...text.matchAll(/"room":"([^"]+)"/g)].map((m) => m[1]!));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cp-daemon-rec-'));
  remoteSim = await startSimulator({ seed: 7, speed: 120 });
  writeFileSync(join(dir, 'momentum.yaml'), yaml('momentum', MOMENTUM, SIM));
  writeFileSync(join(dir, 'sniper.yaml'), yaml('sniper', SNIPER, SIM));
  writeFileSync(
    join(dir, 'remote.yaml'),
    yaml(
      'remote',
      SNIPER,
      `endpoints:\n  remote:\n    baseUrl: ${remoteSim.urls.base}\n    datastreamUrl: ${remoteSim.urls.datastream}\n    apiKey: \${REMOTE_KEY}`,
    ),
  );
  ({ daemon, endpoints } = await startTestDaemon({ dir, token: TOKEN, env: { REMOTE_KEY: remoteSim.apiKey } }));
}, 120_000);

afterAll(async () => {
  await stopTestDaemon({ daemon, endpoints });
  await remoteSim?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('record: in daemon deployments', () => {
  it('writes one recording per deployment with only the rooms it joined, and a backtest of one reproduces its decision log', async () => {
    expect(daemon?.initial.added).toEqual(['momentum', 'remote', 'sniper']);
    expect(endpoints?.open().find((e) => e.key.startsWith('sim:'))?.holders).toBe(2);
    // Run until the momentum deployment has filled a trade and both snipers have seen a graduation.
    await waitFor('a momentum fill', () => logOf('momentum').includes('"kind":"fill"'), 90_000);
    // The operator pauses momentum through the control API until a buy is refused, then resumes: the recording keeps both marks, once each.
    const act = async (verb: 'pause' | 'resume'): Promise<void> => {
      const res = await fetch(`${daemon!.url}/api/deployments/momentum/${verb}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'e2e operator' }),
      });
      expect(res.status, await res.text()).toBe(200);
    };
    await act('pause');
    await waitFor('a momentum buy refused while paused', () => logOf('momentum').includes('"code":"RUNTIME_ENTRIES_PAUSED"'), 90_000);
    await act('resume');
    await waitFor('a graduation for the sniper', () => logOf('sniper').includes('"kind":"intent"'), 90_000);
    await waitFor('a graduation on the remote service', () => logOf('remote').includes('"kind":"intent"'), 90_000);
    await daemon?.stop({ drainMs: 5_000 });

    const momentum = recordingOf('momentum');
    const sniper = recordingOf('sniper');
    const remote = recordingOf('remote');
    for (const text of [momentum, sniper, remote]) {
      expect(text.startsWith('{"k":"header"'), 'a header first').toBe(true);
      expect(text.includes('"k":"end"'), 'the end line').toBe(true);
    }
    const ctl = momentum.split('\n').filter((l) => l.startsWith('{"k":"ctl"'));
    expect(ctl.map((l) => (JSON.parse(l) as { c: { buy: { code: string } | null } }).c.buy?.code ?? null)).toEqual(['RUNTIME_ENTRIES_PAUSED', null]);
    // The sniper joins `graduated`; momentum joins curve milestone rooms (and its positions' prices).
    const mRooms = roomsOf(momentum);
    const sRooms = roomsOf(sniper);
    expect(sRooms.has('graduated')).toBe(true);
    expect(mRooms.has('graduated')).toBe(false);
    expect([...mRooms].some((r) => /:curve:25$/.test(r))).toBe(true);
    expect([...sRooms].some((r) => /:curve:25$/.test(r))).toBe(false);
    // The remote deployment's key is in its endpoint URL and requests, never in its recording.
    expect(roomsOf(remote).has('graduated')).toBe(true);
    expect(remote.includes(remoteSim!.apiKey), 'the remote API key').toBe(false);

    const job = await runBacktestJob({
      file: join(dir, 'momentum.yaml'),
      data: join(dir, 'rec-momentum'),
      outDir: join(dir, 'out'),
      verifyAgainst: join(dir, 'momentum.decisions.jsonl'),
    });
    expect(job.divergence).toBeUndefined();
    expect(job.result.feed.frames).toBeGreaterThan(0);
  }, 240_000);
});
