/**
 * The status panel's renderer: refusals as one counted line per code (never the log lines that
 * reported them), and the run's log written above the redrawn panel as readable lines, on the real
 * pino logger.
 */
import { describe, expect, it } from 'vitest';
import { parseDeployment } from '../../src/config/index.js';
import { createLogger, createRedactor } from '../../src/core/index.js';
import { createPanelLog, createRedraw, createStatusPanel } from '../../src/runtime/shell/status-panel.js';
import { fakeHandle } from '../daemon/fake-handle.js';

const loaded = parseDeployment('version: 1\nname: panel\nstrategies:\n  - use: graduation-sniper\n', '/d/panel.yaml', { env: {} });

function handleWith(refusalsByCode: Record<string, number>) {
  const h = fakeHandle(loaded, { now: () => 1_000 });
  const stats = h.stats.bind(h);
  h.stats = () => {
    const s = stats();
    return { ...s, summary: { ...s.summary, refusalsByCode } };
  };
  return h;
}

describe('status panel', () => {
  it('shows denials and refusals as one counted line per code, most first, the rest summed past 8 codes', () => {
    const screen = createStatusPanel(
      handleWith({ LIVE_INSPECTION_SIMULATION: 27, RISK_MAX_OPEN_POSITIONS: 5_211, LIVE_SPEND_CAP_DAY: 3 }),
      () => 1_000,
    ).screen();
    const lines = screen.split('\n');
    const at = lines.indexOf('denials and refusals 5241');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 4)).toEqual([
      '  RISK_MAX_OPEN_POSITIONS       5211',
      '  LIVE_INSPECTION_SIMULATION      27',
      '  LIVE_SPEND_CAP_DAY               3',
    ]);
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`CODE_${String(i).padStart(2, '0')}`, 100 - i]));
    const long = createStatusPanel(handleWith(many), () => 1_000)
      .screen()
      .split('\n');
    const from = long.findIndex((l) => l.startsWith('denials and refusals'));
    expect(long.slice(from + 1).filter((l) => l.startsWith('  CODE_'))).toHaveLength(8);
    expect(long).toContain('  … 3 more codes, 273 in all'); // 92 + 91 + 90
    expect(createStatusPanel(handleWith({}), () => 1_000).screen()).toContain('\ndenials and refusals none');
  });

  it('writes the log above the panel as readable lines and counts, not prints, the records about single orders', () => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const redraw = createRedraw(
      (t) => void stdout.push(t),
      (t) => void stderr.push(t),
    );
    const sink = createPanelLog(redraw);
    const log = createLogger({ redactor: createRedactor(), level: 'info', destination: sink });
    const panel = createStatusPanel(handleWith({ RISK_MAX_OPEN_POSITIONS: 2 }), () => 1_000, { heldLogLines: () => sink.held() });
    const frame = panel.screen();
    redraw.draw(frame);
    const frameLines = frame.split('\n').length;
    // Two refusals as the engine and the live executor log them: held, counted.
    log.info({ strategyId: 's', mint: 'M', side: 'buy', code: 'RISK_MAX_OPEN_POSITIONS' }, 'order denied: 3 positions open');
    log.warn({ intentId: 'int_1', code: 'LIVE_INSPECTION_SIMULATION', reason: 'x' }, 'swap rejected by inspection; not signed');
    expect(sink.held()).toBe(2);
    expect(stderr).toEqual([]);
    // Anything else: one line on stderr above the panel, which is drawn again below it.
    log.warn({ err: new Error('rpc down') }, 'getRecentPrioritizationFees failed; paying the priority fee cap');
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toMatch(/^\d\d:\d\d:\d\d WARN getRecentPrioritizationFees failed; paying the priority fee cap: rpc down\n$/);
    expect(stdout.slice(-2)).toEqual([`\x1b[${frameLines}F\x1b[J`, `${frame}\n`]);
    // An error about an order is not held back.
    log.error({ intentId: 'int_2', code: 'JOURNAL_CORRUPT' }, 'journal write failed');
    expect(stderr[1]).toMatch(/ERROR journal write failed \(JOURNAL_CORRUPT\)\n$/);
    for (const t of [...stdout, ...stderr]) expect(t).not.toContain('{"level"');
    expect(panel.screen()).toContain('denials and refusals 2 (2 log lines about them held back; the decision log has each)');
  });
});
