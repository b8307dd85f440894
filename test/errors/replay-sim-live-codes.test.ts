import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor, isChainpilotError, manualClock, silentLogger, type UnixMs } from '../../src/core/index.js';
import { resolveLiveSettings } from '../../src/executors/live/live-settings.js';
import { createPriorityFeeSource } from '../../src/executors/live/priority-fee.js';
import { RECORDING_FORMAT, type RecordingHeader } from '../../src/research/replay/recording-format.js';
import { readRecording } from '../../src/research/replay/recording-reader.js';
import { createRecordingWriter } from '../../src/research/replay/recording-writer.js';
import { createRecorder } from '../../src/research/record/recorder.js';
import { captureLog } from '../runtime/helpers.js';
import { startHarness, type Harness } from '../sim-ledger/harness.js';
import { thrown } from '../helpers/thrown.js';

const header = (part: number, at: number): RecordingHeader => ({
  k: 'header',
  format: RECORDING_FORMAT,
  chainpilot: 'test',
  rooms: [],
  endpoints: {},
  clock: 'wall',
  startedAt: at,
  part,
  partStartedAt: at,
  source: 'rooms',
});

describe('recording codes (real files)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cp-errors-rec-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names a --data spec that matches no file with RECORDING_NOT_FOUND (path, directory and glob)', () => {
    for (const spec of [join(dir, 'missing.jsonl'), join(dir, 'empty-dir-none'), join(dir, 'nothing-*.jsonl.gz')]) {
      const e = thrown(() => readRecording(spec));
      expect(isChainpilotError(e, 'RECORDING_NOT_FOUND'), spec).toBe(true);
      expect(e).toMatchObject({ context: { field: 'data' } });
    }
  });

  it('refuses a file without a recording header, or of another format, with RECORDING_INVALID', () => {
    const noHeader = join(dir, 'no-header.jsonl');
    writeFileSync(noHeader, '{"kind":"frame","t":1}\n');
    expect(
      isChainpilotError(
        thrown(() => readRecording(noHeader)),
        'RECORDING_INVALID',
      ),
    ).toBe(true);
    const future = join(dir, 'future.jsonl');
    writeFileSync(future, `${JSON.stringify({ ...header(0, 0), format: RECORDING_FORMAT + 1 })}\n`);
    const e = thrown(() => readRecording(future));
    expect(isChainpilotError(e, 'RECORDING_INVALID')).toBe(true);
    expect((e as Error).message).toContain(`format ${RECORDING_FORMAT + 1}`);
  });

  it('logs RECORDING_WRITE_FAILED once and stops writing when the recording folder cannot be created', async () => {
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, 'not a folder');
    const { log, lines } = captureLog();
    const w = createRecordingWriter({ prefix: join(blocker, 'sub', 'rec'), gzip: false, header, log });
    w.write('{"kind":"frame"}\n', 1);
    w.write('{"kind":"frame"}\n', 2);
    await w.close();
    const errors = lines.filter((l) => l.includes('RECORDING_WRITE_FAILED'));
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0]!)).toMatchObject({ msg: 'recording stopped: write failed', err: { code: 'RECORDING_WRITE_FAILED' } });
    expect(w.stats().errors).toBeGreaterThan(0);
  });

  it("logs a recorder's RECORDING_WRITE_FAILED once on the run's logger, from its writing thread, and the run goes on", async () => {
    const blocker = join(dir, 'another-file');
    writeFileSync(blocker, 'not a folder');
    const { log, lines } = captureLog();
    const clock = manualClock(1_000);
    const rec = createRecorder({
      dir: join(blocker, 'sub'),
      source: 'bad',
      clock,
      clockKind: 'wall',
      rooms: [],
      endpoints: {},
      redactor: createRedactor(),
      log,
    });
    rec.onRawFrame('{"type":"message","room":"r","data":{}}', 1_000 as UnixMs);
    await rec.writer.drained();
    rec.onRawFrame('{"type":"message","room":"r","data":{}}', 1_001 as UnixMs);
    await rec.stop();
    const errors = lines.filter((l) => l.includes('RECORDING_WRITE_FAILED'));
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0]!)).toMatchObject({ msg: 'recording stopped: write failed', err: { code: 'RECORDING_WRITE_FAILED' } });
    expect(rec.writer.stats().errors).toBeGreaterThan(0);
  });
});

describe('simulator ledger codes (real ledger, JSON-RPC and swap servers on 127.0.0.1)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it('refuses an airdrop of no lamports or to a non-base58 address with LEDGER_INVALID_AIRDROP', async () => {
    h = await startHarness();
    const ledger = h.ledger;
    const wallet = Keypair.generate().publicKey.toBase58();
    expect(
      isChainpilotError(
        thrown(() => ledger.airdrop(wallet, 0n)),
        'LEDGER_INVALID_AIRDROP',
      ),
    ).toBe(true);
    expect(
      isChainpilotError(
        thrown(() => ledger.airdrop('not-an-address!', 1_000n)),
        'LEDGER_INVALID_AIRDROP',
      ),
    ).toBe(true);
    expect(typeof ledger.airdrop(wallet, 1_000n)).toBe('string');
  });

  it('answers a swap request that is not JSON, or lacks fields, with HTTP 400 and LEDGER_INVALID_SWAP_REQUEST', async () => {
    h = await startHarness();
    const missing = await h.swap({ amount: 1 });
    expect(missing).toMatchObject({ status: 400, json: { error: { code: 'LEDGER_INVALID_SWAP_REQUEST' } } });
    const res = await fetch(h.swapUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'LEDGER_INVALID_SWAP_REQUEST', message: expect.stringContaining('not valid JSON') } });
  });

  it('fails to start with LEDGER_SERVER_START_FAILED when the JSON-RPC port is taken', async () => {
    h = await startHarness();
    const taken = Number(new URL(h.rpcUrl).port);
    const e = await startHarness({ rpcPort: taken }).catch((err: unknown) => err);
    expect(isChainpilotError(e, 'LEDGER_SERVER_START_FAILED')).toBe(true);
    expect((e as Error).message).toContain(String(taken));
  });
});

describe('live executor settings codes', () => {
  it('refuses bad rebuild, slippage and priority-fee settings with LIVE_INVALID_SETTINGS naming the field', () => {
    const base = { maxTradeLamports: 1_000_000_000n, maxDayLamports: 5_000_000_000n };
    for (const [input, field] of [
      [{ ...base, maxAttempts: 0 }, 'maxAttempts'],
      [{ ...base, maxSlippageBps: 20_000 }, 'maxSlippageBps'],
      [{ ...base, priorityFee: { percentile: 0, capLamports: 1n, computeUnits: 200_000 } }, 'priorityFee.percentile'],
    ] as const) {
      const e = thrown(() => resolveLiveSettings(input));
      expect(isChainpilotError(e, 'LIVE_INVALID_SETTINGS'), field).toBe(true);
      expect(e).toMatchObject({ context: { field } });
    }
    expect(resolveLiveSettings(base).maxAttempts).toBe(3);
  });

  it('refuses a priority-fee policy without an RPC port that reads recent fees with LIVE_INVALID_SETTINGS', () => {
    const policy = { percentile: 75, capLamports: 100_000n, computeUnits: 200_000 };
    const e = thrown(() => createPriorityFeeSource(policy, {}, manualClock(0), silentLogger()));
    expect(isChainpilotError(e, 'LIVE_INVALID_SETTINGS')).toBe(true);
    expect((e as Error).message).toContain('getRecentPrioritizationFees');
  });
});
