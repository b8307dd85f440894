/**
 * `createLifecycle`, the one implementation of the Lifecycle rules, on a manual clock: the drain's
 * deadline (and the coded reason its signal carries), a failed start, a stop during a start, and a
 * delegated deadline. The real parts are checked in lifecycle-conformance.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createLifecycle, createLogger, createRedactor, manualClock, silentLogger } from '../../src/core/index.js';

describe('createLifecycle', () => {
  it('aborts a drain past its deadline with CORE_DRAIN_DEADLINE, then halts and reports once', async () => {
    const clock = manualClock(0);
    const seen: string[] = [];
    let reason: unknown;
    const life = createLifecycle(
      {
        name: 'part',
        drain: (signal) =>
          new Promise<void>(() => {
            seen.push('draining');
            signal.addEventListener('abort', () => (reason = signal.reason), { once: true });
          }),
        halt: () => {
          seen.push('halt');
          return Promise.resolve();
        },
        report: () => ({ halted: seen.includes('halt') }),
      },
      { log: silentLogger(), clock, defaultDrainMs: 5_000, running: true },
    );
    const stopping = life.stop();
    expect(seen).toEqual(['draining']);
    expect(life.health()).toMatchObject({ state: 'stopping', ready: false });
    clock.advance(5_000);
    const report = await stopping;
    expect(report).toEqual({ halted: true });
    expect(reason).toMatchObject({ code: 'CORE_DRAIN_DEADLINE', context: { part: 'part', drainMs: 5_000 } });
    expect(seen).toEqual(['draining', 'halt']);
    expect(await life.done()).toBe(report);
  });

  it('a failed start rejects, halts the part, and leaves stop and done with its report', async () => {
    let halts = 0;
    const life = createLifecycle(
      {
        name: 'part',
        start: () => Promise.reject(new Error('no route')),
        halt: () => {
          halts++;
          return Promise.resolve();
        },
        report: () => ({ halts }),
      },
      { log: silentLogger(), clock: manualClock(0), defaultDrainMs: 1_000 },
    );
    await expect(life.start()).rejects.toThrow('no route');
    expect(life.health()).toMatchObject({ state: 'failed', ready: false, reasons: ['part: ended: start failed: Error: no route'] });
    const report = await life.stop();
    expect(report).toEqual({ halts: 1 });
    expect(await life.done()).toBe(report);
    expect(halts).toBe(1);
    await expect(life.start()).rejects.toMatchObject({ code: 'CORE_PART_STOPPED' });
  });

  it('a stop during a start waits for the start, then drains and halts', async () => {
    const order: string[] = [];
    let started!: () => void;
    const life = createLifecycle(
      {
        name: 'part',
        start: () => new Promise<void>((r) => (started = r)),
        drain: () => {
          order.push('drain');
          return Promise.resolve();
        },
        halt: () => {
          order.push('halt');
          return Promise.resolve();
        },
        report: () => order.length,
      },
      { log: silentLogger(), clock: manualClock(0), defaultDrainMs: 1_000 },
    );
    const starting = life.start();
    const stopping = life.stop();
    expect(life.health()).toMatchObject({ state: 'starting', ready: false });
    started();
    await starting;
    expect(await stopping).toBe(2);
    expect(order).toEqual(['drain', 'halt']);
  });

  it('a delegated deadline is handed to the drain and no timer of its own cuts it', async () => {
    const clock = manualClock(0);
    let given: number | undefined = -1;
    let finish!: () => void;
    const life = createLifecycle(
      {
        name: 'holder',
        drain: (_signal, drainMs) => {
          given = drainMs;
          return new Promise<void>((r) => (finish = r));
        },
        halt: () => Promise.resolve(),
        report: () => 'reports of the parts held',
      },
      { log: silentLogger(), clock, delegated: true, running: true },
    );
    const stopping = life.stop({ drainMs: 100 });
    expect(given).toBe(100);
    clock.advance(1_000); // the held parts keep their own deadlines: the holder waits for their reports
    expect(life.health().state).toBe('stopping');
    finish();
    expect(await stopping).toBe('reports of the parts held');
  });

  it('ending by itself resolves done with the report and says why in health', async () => {
    const life = createLifecycle(
      { name: 'poller', halt: () => Promise.resolve(), report: () => 'r' },
      { log: silentLogger(), clock: manualClock(0), running: true, defaultDrainMs: 0 },
    );
    expect(life.health()).toEqual({ state: 'running', ready: true, reasons: [] });
    await life.end('the server closed the stream');
    expect(await life.done()).toBe('r');
    expect(life.health()).toEqual({ state: 'stopped', ready: false, reasons: ['poller: ended: the server closed the stream'] });
  });

  it('logs a drain that fails and halts all the same', async () => {
    const lines: string[] = [];
    const log = createLogger({ redactor: createRedactor(), destination: { write: (l: string) => void lines.push(l) } });
    let halted = false;
    const life = createLifecycle(
      {
        name: 'part',
        drain: () => Promise.reject(new Error('queue store gone')),
        halt: () => {
          halted = true;
          return Promise.resolve();
        },
        report: () => halted,
      },
      { log, clock: manualClock(0), defaultDrainMs: 1_000, running: true },
    );
    expect(await life.stop()).toBe(true);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, part: 'part', msg: 'part: its drain failed; it halts now' });
    expect(lines[0]).toContain('queue store gone');
  });

  it('a stop during a start aborts the start with CORE_PART_STOPPED; a start that gives up is reported aborted and the part halts', async () => {
    const clock = manualClock(0);
    let reason: unknown;
    const order: string[] = [];
    const life = createLifecycle(
      {
        name: 'part',
        start: (signal) =>
          new Promise<void>((_, reject) =>
            signal.addEventListener(
              'abort',
              () => {
                reason = signal.reason;
                reject(signal.reason as Error);
              },
              { once: true },
            ),
          ),
        startStep: () => 'reconciling',
        drain: () => {
          order.push('drain');
          return Promise.resolve();
        },
        halt: () => {
          order.push('halt');
          return Promise.resolve();
        },
        report: (end) => end.abandoned,
      },
      { log: silentLogger(), clock, defaultDrainMs: 1_000 },
    );
    const starting = life.start();
    const report = await life.stop();
    expect(reason).toMatchObject({ code: 'CORE_PART_STOPPED' });
    await expect(starting).rejects.toMatchObject({ code: 'CORE_PART_STOPPED' });
    expect(report).toEqual(['start: reconciling: aborted by the stop']);
    // the part never ran: nothing to drain
    expect(order).toEqual(['halt']);
    expect(life.health()).toMatchObject({ state: 'stopped', abandoned: report });
    expect(clock.pending()).toBe(0);
  });

  it('a halt that rejects fails the stop and done, within its deadline; one past its grace is left behind and logged when it fails', async () => {
    const lines: string[] = [];
    const log = createLogger({ redactor: createRedactor(), destination: { write: (l: string) => void lines.push(l) } });
    const clock = manualClock(0);
    let failLate!: (e: Error) => void;
    const late = createLifecycle(
      { name: 'late', halt: () => new Promise<void>((_, reject) => (failLate = reject)), report: (end) => end.abandoned },
      { log, clock, running: true, haltGraceMs: 100 },
    );
    const stopping = late.stop({ drainMs: 0 });
    await new Promise((r) => setImmediate(r));
    clock.advance(100);
    expect(await stopping).toEqual(["halt: still running 100 ms past the stop's deadline; the stop returned without it"]);
    failLate(new Error('socket gone'));
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual([
      "late: the stop abandoned halt: still running 100 ms past the stop's deadline; the stop returned without it",
      'late: its abandoned halt failed',
    ]);

    const failing = createLifecycle(
      { name: 'failing', halt: () => Promise.reject(new Error('close failed')), report: () => 'never' },
      { log: silentLogger(), clock: manualClock(0), running: true },
    );
    await expect(failing.stop()).rejects.toThrow('close failed');
    await expect(failing.done()).rejects.toThrow('close failed');
    expect(failing.state).toBe('failed');
  });

  it('a part built and never started drains its work in hand on stop; one whose start the stop aborted does not drain', async () => {
    const order: string[] = [];
    const parts = (start?: (signal: AbortSignal) => Promise<void>) =>
      createLifecycle(
        {
          name: 'part',
          ...(start ? { start } : {}),
          drain: () => {
            order.push('drain');
            return Promise.resolve();
          },
          halt: () => {
            order.push('halt');
            return Promise.resolve();
          },
          report: () => [...order],
        },
        { log: silentLogger(), clock: manualClock(0), defaultDrainMs: 1_000 },
      );
    expect(await parts().stop()).toEqual(['drain', 'halt']);
    order.length = 0;
    const aborted = parts((signal) => new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error))));
    void aborted.start().catch(() => undefined);
    expect(await aborted.stop()).toEqual(['halt']);
  });
});
