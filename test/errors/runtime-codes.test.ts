import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadDeployment, parseDeployment } from '../../src/config/index.js';
import { ChainpilotError, isChainpilotError, manualClock, silentLogger, type Lamports, type RawAmount, type UnixMs } from '../../src/core/index.js';
import type { ExecutionReport, ExecutionSink, Executor } from '../../src/engine/orders/execution-port.js';
import { createDeployment } from '../../src/runtime/handle/create-deployment.js';
import { createEventLog } from '../../src/service/event-log.js';
import { createIntentTracker } from '../../src/runtime/handle/intent-tracker.js';
import { runPaper } from '../../src/runtime/shell/run-paper.js';
import { guardProcessExit } from '../../src/runtime/shell/run-shell.js';
import { fakeSupervisor } from '../daemon/fake-handle.js';
import { paperSimYaml, tempDir, until, type TempDir } from '../runtime/helpers.js';

let tmp: TempDir | undefined;
afterEach(() => {
  tmp?.remove();
  tmp = undefined;
});

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as { port: number };
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** An executor whose journal is corrupt: every submit fails with JOURNAL_CORRUPT (a fatal code). */
const corruptJournalExecutor = (): Executor => ({
  start: (_sink: ExecutionSink) => Promise.resolve(),
  submit: () => Promise.reject(new ChainpilotError('JOURNAL_CORRUPT', 'row 7 of the journal could not be decoded', { retry: 'fatal' })),
  stop: () => Promise.resolve(),
});

describe('runtime codes', () => {
  it('makes process.exit throw RUNTIME_PROCESS_EXIT while user code runs, and restores it afterwards', () => {
    const restore = guardProcessExit();
    const guarded = process.exit;
    let caught: unknown;
    try {
      process.exit(3);
    } catch (e) {
      caught = e;
    } finally {
      restore();
    }
    expect(isChainpilotError(caught, 'RUNTIME_PROCESS_EXIT')).toBe(true);
    expect((caught as Error).message).toContain('process.exit(3)');
    expect(process.exit).not.toBe(guarded);
  });

  it('refuses an event log without room for an entry with CORE_INVALID_ARGUMENT (a coded error, not a RangeError)', () => {
    let caught: unknown;
    try {
      createEventLog(0, () => undefined);
    } catch (e) {
      caught = e;
    }
    expect(isChainpilotError(caught, 'CORE_INVALID_ARGUMENT')).toBe(true);
    expect(createEventLog(1, () => undefined).size).toBe(0);
  });

  it('turns an uncoded failure to apply an execution report into the fatal RUNTIME_INVARIANT_BROKEN, and passes a coded fatal error through', async () => {
    let emit: ExecutionSink | undefined;
    const inner: Executor = {
      start: (sink) => {
        emit = sink;
        return Promise.resolve();
      },
      submit: () => Promise.resolve(),
      stop: () => Promise.resolve(),
    };
    const fatal: ChainpilotError[] = [];
    const tracker = createIntentTracker({ inner, clock: manualClock(1_000), log: silentLogger(), onFatal: (e) => fatal.push(e) });
    let applyError: Error = new TypeError('position map is undefined');
    await tracker.start(() => {
      throw applyError;
    });
    const filled: ExecutionReport = {
      type: 'filled',
      intentId: 'i-1',
      at: 1_000 as UnixMs,
      fill: {
        intentId: 'i-1',
        side: 'buy',
        mint: 'M',
        decimals: 6,
        solAmount: 1n as Lamports,
        tokenAmount: 1n as RawAmount,
        feeLamports: 0n as Lamports,
        price: '1',
        filledAt: 1_000 as UnixMs,
      },
    };
    emit!(filled);
    applyError = new ChainpilotError('ENGINE_POSITION_OVERSOLD', 'sold more than held', { retry: 'fatal' });
    emit!({ ...filled, intentId: 'i-2' });
    expect(fatal.map((e) => e.code)).toEqual(['RUNTIME_INVARIANT_BROKEN', 'ENGINE_POSITION_OVERSOLD']);
    expect(fatal[0]!.message).toContain('position map is undefined');
  });

  it('gives a daemon deployment that stopped by itself the cause RUNTIME_DEPLOYMENT_FAILED and restarts it', async () => {
    const clock = manualClock(1_000_000);
    const { sup, made: handles } = fakeSupervisor(clock, { backoff: { initialMs: 1_000, maxMs: 8_000 } });
    const yaml = 'version: 1\nname: quiet\nstrategies:\n  - use: graduation-sniper\n';
    await sup.apply([{ file: '/d/quiet.yaml', hash: 'h1', loaded: parseDeployment(yaml, '/d/quiet.yaml') }]);
    expect(sup.get('quiet')?.state).toBe('running');
    await handles[0]!.stop(); // ends without a fatal cause, not through the supervisor
    await until(() => sup.get('quiet')?.state === 'restarting', 'the supervisor to see the end');
    expect(sup.get('quiet')?.cause).toEqual({ code: 'RUNTIME_DEPLOYMENT_FAILED', message: 'the deployment stopped by itself' });
    clock.advance(1_000);
    await until(() => handles.length === 2 && sup.get('quiet')?.state === 'running', 'the restart');
    await sup.stop();
  });

  it('denies every order of a halted deployment with RUNTIME_HALTED (real simulator)', async () => {
    tmp = tempDir('cp-errors-halt-');
    const file = tmp.write('paper.yaml', paperSimYaml());
    const handle = createDeployment(loadDeployment(file), { mode: 'paper', speed: 'max', seed: 5, executor: corruptJournalExecutor() });
    try {
      await handle.start();
      await until(() => handle.health().state === 'halted', 'the halt after JOURNAL_CORRUPT', 30_000);
      expect(handle.health().cause?.code).toBe('JOURNAL_CORRUPT');
      await until(() => (handle.stats().denialsByCode['RUNTIME_HALTED'] ?? 0) > 0, 'an order denied while halted', 30_000);
    } finally {
      await handle.stop();
    }
  }, 70_000);

  it('ends a paper run whose feed never delivered a frame with RUNTIME_FEED_NEVER_OPENED and exit status 1', async () => {
    const port = await closedPort();
    tmp = tempDir('cp-errors-feed-');
    const file = tmp.write(
      'unreachable.yaml',
      [
        'version: 1',
        'name: unreachable',
        'endpoints:',
        '  remote:',
        `    baseUrl: http://127.0.0.1:${port}`,
        `    datastreamUrl: ws://127.0.0.1:${port}`,
        '    apiKey: some-key',
        'strategies:',
        '  - use: graduation-sniper',
        'telemetry:',
        '  logLevel: silent',
        '',
      ].join('\n'),
    );
    const printed: string[] = [];
    const r = await runPaper({ file, durationMs: 1_500, out: (t) => printed.push(t), signals: false });
    expect(r.exitCode).toBe(1);
    expect(r.problem).toMatch(/^RUNTIME_FEED_NEVER_OPENED: /);
    expect(printed.join('')).toContain('RUNTIME_FEED_NEVER_OPENED');
    expect(printed.join('')).not.toContain('some-key');
  }, 30_000);
});
