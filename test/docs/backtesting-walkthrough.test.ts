/**
 * The walk-through of docs/backtesting.md runs as written: every command of the block marked
 * `<!-- run: test/docs/backtesting-walkthrough.test.ts -->`, in order, in a fresh directory (with
 * `bin` and `config` linked from the repository), each exiting 0.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MARK = '<!-- run: test/docs/backtesting-walkthrough.test.ts -->';

/** The command lines of the marked block (a line ending in `\` continues on the next). */
function walkthrough(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/backtesting.md'), 'utf8');
  const at = doc.indexOf(`${MARK}\n\`\`\`sh\n`);
  if (at < 0) throw new Error(`docs/backtesting.md: no ${MARK} line above a sh block`);
  const start = at + MARK.length + 7;
  const body = doc.slice(start, doc.indexOf('\n```', start));
  return body
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith('#'));
}

const dir = mkdtempSync(join(tmpdir(), 'cp-walkthrough-'));
symlinkSync(join(ROOT, 'bin'), join(dir, 'bin'));
symlinkSync(join(ROOT, 'config'), join(dir, 'config'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/backtesting.md walk-through', () => {
  it('runs every command of the download → backtest → report → sweep block, in order, each exiting 0', () => {
    const commands = walkthrough();
    expect(commands.map((c) => c.split(' ')[2])).toEqual(['download', 'backtest', 'report', 'sweep']);
    const out: string[] = [];
    for (const c of commands) {
      const r = spawnSync('bash', ['-c', c], { cwd: dir, encoding: 'utf8', timeout: 180_000 });
      expect({ command: c, status: r.status, stderr: r.status === 0 ? '' : r.stderr }).toEqual({ command: c, status: 0, stderr: '' });
      out.push(r.stdout);
    }
    // what the text around the block says
    expect(out[0]).toMatch(/^downloaded \d+ tokens: /);
    // the safety rooms are rebuilt from the swaps: no room joined blind, no cell blind to its curve milestone
    expect(out[1]).not.toContain('SILENT ROOMS');
    expect(out[3]).not.toContain('SILENT ROOMS');
    expect(out[3]).not.toMatch(/curve:\d+ \(/);
    expect(existsSync(join(dir, 'backtest-dl', 'report.html'))).toBe(true);
    expect(readFileSync(join(dir, 'sweep-dl', 'sweep.html'), 'utf8')).toContain('Sweep of config/paper-sim.yaml');
  }, 300_000);
});
