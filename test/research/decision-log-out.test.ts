/**
 * The backtest's decision log encoded into one reused 64 KiB buffer, written and hashed a buffer at a
 * time, must be the log as one string, byte for byte: across many buffers, with multi-byte text in a
 * reason, with a line longer than the buffer can take, and for an empty run.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DecisionEntry } from '../../src/engine/logs/decision-log.js';
import { decisionLogSha256, decisionLogText, writeDecisionLog } from '../../src/research/backtest/decision-log-out.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-decision-log-out-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const entry = (i: number): DecisionEntry =>
  i % 3 === 0
    ? {
        kind: 'intent',
        at: i,
        intentId: `int_${i}`,
        strategyId: 's',
        side: 'buy',
        mint: `M${i}`,
        amountIn: `${i}000`,
        referencePrice: null,
        reason: `über ${'é'.repeat(i % 7)} 🚀`,
      }
    : {
        kind: 'denied',
        at: i,
        strategyId: 's',
        side: 'sell',
        mint: `M${i}`,
        amountIn: '1',
        code: 'RISK_X',
        reason: i === 700 ? '€x'.repeat(20_000) : 'x'.repeat(i % 300),
      };

describe('the decision log out of its entries', () => {
  it.each([0, 1, 200, 701, 1537])('writes and hashes %i entries as the log in one string', (n) => {
    const entries = Array.from({ length: n }, (_, i) => entry(i));
    const text = decisionLogText(entries);
    expect(text.split('\n').length - 1).toBe(n);
    const path = join(dir, `d${n}.jsonl`);
    const sha = createHash('sha256').update(text, 'utf8').digest('hex');
    expect(writeDecisionLog(entries, path)).toBe(sha);
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(decisionLogSha256(entries)).toBe(sha);
  });
});
