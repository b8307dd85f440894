/**
 * Parity of the strategy context's market aggregates (issue 41): a paper session on the embedded
 * simulator with recording on, then a backtest of the recording with the same deployment, writes the
 * same decision log byte for byte, where every decision's reason spells out what the aggregates
 * answered (test/e2e/fixtures/kit/kit-probe.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/index.js';
import { parseDeployment } from '../../src/config/index.js';
import { memoryDecisionLog } from '../../src/engine/logs/decision-log.js';
import { readRecording } from '../../src/research/replay/recording-reader.js';
import { runBacktest } from '../../src/research/backtest/run-backtest.js';
import { recordSimulator } from '../../src/research/record/record-sim.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-kit-parity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DEPLOYMENT = `version: 1
name: kit-parity
endpoints:
  simulator: { seed: 5, speed: 60 }
strategies:
  - use: ./kit-probe.ts
risk:
  maxTradeSol: "0.5"
  maxOpenPositions: 4
  maxExposureSol: "2"
paper:
  startingBalanceSol: "10"
  latency: 250ms
telemetry:
  logLevel: silent
`;

describe('backtest parity of the market aggregates in the strategy context', () => {
  it('answers ctx.flow, ctx.bars with its indicators, ctx.account and ctx.track the same in the recorded paper session and in its backtest', async () => {
    const loaded = parseDeployment(DEPLOYMENT, 'test/e2e/fixtures/kit/kit-parity.yaml');
    const paper = memoryDecisionLog();
    await recordSimulator({ seed: 5, durationMs: 20 * 60_000, loaded, dir, redactor: createRedactor(), decisions: paper.sink });
    const paperLog = paper.lines.join('');
    const reasons = paper.lines.filter((l) => l.includes('"kind":"intent"') && l.includes('flow '));
    expect(reasons.length).toBeGreaterThan(3);
    // the probe read real flow: SOL volume and a VWAP
    expect(reasons.some((l) => /flow \d+ \d+\/\d+ \d+\/\d+ [1-9]\d* -?\d+ 0\.\d+ /.test(l))).toBe(true);
    // bars with their EMA, RSI and ATR once three bars closed
    expect(reasons.some((l) => / bars ([3-9]|\d\d+) 0\.\d+ 0\.\d+ 0\.\d+ 0\.\d+ \d+ [\d.e-]+ [\d.e-]+ [\d.e-]+ tracked/.test(l))).toBe(true);
    // tracked state that counted the token's swaps since its launch
    expect(reasons.some((l) => / tracked [1-9]\d* \d+ \d+ account/.test(l))).toBe(true);
    // and the account as positions opened: exposure and the room left move
    expect(reasons.some((l) => / account \d+ \d+ [1-9]\d* [1-4] [0-3] \d+ \d+"/.test(l))).toBe(true);
    const bt = await runBacktest({ loaded, recording: readRecording(dir) });
    expect(bt.data.misses).toBe(0);
    expect(bt.decisionLog).toBe(paperLog);
  }, 180_000);
});
