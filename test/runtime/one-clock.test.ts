/**
 * One clock per run: under the embedded simulator every part of a deployment reads the
 * simulator's clock. Real simulator, real sockets, the real engine and paper executor.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadDeployment } from '../../src/config/index.js';
import type { UnixMs } from '../../src/core/index.js';
import { memoryDecisionLog } from '../../src/engine/logs/decision-log.js';
import { createDeployment } from '../../src/runtime/handle/create-deployment.js';
import { tempDir, paperSimYaml, until, type TempDir } from './helpers.js';

let tmp: TempDir | undefined;
afterEach(() => {
  tmp?.remove();
  tmp = undefined;
});

const START = Date.UTC(2026, 0, 1) as UnixMs;

/** Runs paper-sim at max speed with `seed` until `simMs` of simulated time passed; returns its decision lines. */
async function runMax(file: string, seed: number, simMs: number): Promise<string[]> {
  const log = memoryDecisionLog();
  const handle = createDeployment(loadDeployment(file), { mode: 'paper', speed: 'max', seed, decisions: log.sink });
  await handle.start();
  try {
    await until(() => (handle.clock()?.now() ?? 0) >= START + simMs, `${simMs} simulated ms`);
  } finally {
    await handle.stop();
  }
  return log.lines;
}

describe('one clock per run', () => {
  it('gives byte-identical decision logs for the same seed at max speed', async () => {
    tmp = tempDir('cp-clock-');
    const file = tmp.write('paper.yaml', paperSimYaml());
    const cut = START + 8 * 60_000;
    const upTo = (lines: string[]): string => lines.filter((l) => (JSON.parse(l) as { at: number }).at <= cut).join('');
    const a = await runMax(file, 7, 10 * 60_000);
    const b = await runMax(file, 7, 10 * 60_000);
    const other = await runMax(file, 8, 10 * 60_000);
    expect(upTo(a).split('\n').length).toBeGreaterThan(10);
    expect(upTo(b)).toBe(upTo(a));
    expect(upTo(other)).not.toBe(upTo(a));
  }, 60_000);

  it('at 60x a 5-minute cooldown lasts 5 simulated minutes, and receive times are simulator time', async () => {
    tmp = tempDir('cp-clock-');
    const file = tmp.write(
      'probe.yaml',
      [
        'version: 1',
        'name: probe',
        'endpoints:',
        '  simulator:',
        '    seed: 3',
        '    speed: 60',
        'strategies:',
        `  - use: ${process.cwd()}/test/runtime/fixtures/probe-strategy.ts`,
        '    params: { everyMs: 10000 }',
        'risk:',
        '  cooldown: 5m',
        'telemetry:',
        '  logLevel: silent',
        '',
      ].join('\n'),
    );
    const log = memoryDecisionLog();
    const handle = createDeployment(loadDeployment(file), { mode: 'paper', simulatorStartAt: START, decisions: log.sink });
    type Entry = { kind: string; at: number; code?: string; reason?: string; intentId?: string };
    const entries = (): Entry[] => log.lines.map((l) => JSON.parse(l) as Entry);
    await handle.start();
    try {
      const secondIntentAfterFill = (): boolean => {
        const e = entries();
        const fill = e.find((x) => x.kind === 'fill');
        return fill !== undefined && e.some((x) => x.kind === 'intent' && x.at > fill.at);
      };
      await until(secondIntentAfterFill, 'a buy after the cooldown', 25_000);
    } finally {
      await handle.stop();
    }
    const e = entries();
    const fill = e.find((x) => x.kind === 'fill')!;
    const next = e.find((x) => x.kind === 'intent' && x.at > fill.at)!;
    const between = e.filter((x) => x.at > fill.at && x.at < next.at);
    expect(next.at - fill.at).toBeGreaterThanOrEqual(5 * 60_000);
    expect(next.at - fill.at).toBeLessThanOrEqual(5 * 60_000 + 10_000);
    expect(between.length).toBeGreaterThanOrEqual(25);
    expect(between.every((x) => x.kind === 'denied' && x.code === 'RISK_COOLDOWN')).toBe(true);
    // receivedAt of the frames the strategy saw is simulator time (the run started on 2026-01-01).
    const receivedAt = Number(/receivedAt=(\d+)/.exec(next.reason ?? '')?.[1]);
    expect(receivedAt).toBeGreaterThanOrEqual(START);
    expect(receivedAt).toBeLessThanOrEqual(next.at);
    expect(handle.health().feed.lastFrameAt).toBeGreaterThanOrEqual(START);
    expect(handle.health().feed.lastFrameAt).toBeLessThan(START + 3_600_000);
  }, 60_000);
});
