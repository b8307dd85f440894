/**
 * Bounds where a careless operator's input enters (issue 29): the size of a deployment file, the
 * length of its name and of every string and key, and the paths given on the command line. Each
 * refusal is a coded error, fast, with bounded memory; the real binary is run for the cases the
 * issue reported (`validate /dev/zero`, `daemon --data-dir /proc/x`, `daemon --log-level nope`,
 * `wallet new --out /proc/x`). Fuzzed: file sizes around the limit, string lengths, path shapes.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { checkOutFileOption, prepareDirOption } from '../../src/cli/cli-paths.js';
import { logLevelOption } from '../../src/cli/options.js';
import { loadDeployment, parseDeployment } from '../../src/config/index.js';
import { CONFIG_TEXT_LIMITS } from '../../src/config/limits.js';
import { readDeploymentText } from '../../src/config/load-deployment.js';
import { isChainpilotError } from '../../src/core/index.js';
import { fuzzParams } from '../helpers/fuzz.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-bounds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = (name = 't'): string => `version: 1\nname: ${JSON.stringify(name)}\nstrategies:\n  - use: graduation-sniper\n`;

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (!isChainpilotError(e)) throw e;
    return e.code;
  }
  return 'ok';
}

/** Runs the real binary; resolves with its exit code and stderr. */
async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  return await promisify(execFile)(process.execPath, ['bin/chainpilot.js', ...args], { timeout: 60_000 }).then(
    (x) => ({ code: 0, stderr: x.stderr }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
}

describe('deployment file size', () => {
  it('refuses /dev/zero with CONFIG_FILE_TOO_LARGE after reading at most the limit', () => {
    const before = process.memoryUsage().rss;
    expect(codeOf(() => loadDeployment('/dev/zero'))).toBe('CONFIG_FILE_TOO_LARGE');
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('accepts a file of exactly the limit and refuses one byte more, for any size around it', () => {
    fc.assert(
      fc.property(fc.integer({ min: -2_000, max: 2_000 }), (delta) => {
        const size = CONFIG_TEXT_LIMITS.fileBytes + delta;
        const file = join(dir, 'sized.yaml');
        const head = base();
        writeFileSync(file, head + '#'.repeat(size - head.length));
        expect(statSync(file).size).toBe(size);
        expect(codeOf(() => readDeploymentText(file))).toBe(size > CONFIG_TEXT_LIMITS.fileBytes ? 'CONFIG_FILE_TOO_LARGE' : 'ok');
      }),
      fuzzParams({ numRuns: 20, seed: 2903 }, [[0], [1]]),
    );
  });

  it('a directory or a missing file is CONFIG_UNREADABLE', () => {
    expect(codeOf(() => readDeploymentText(dir))).toBe('CONFIG_UNREADABLE');
    expect(codeOf(() => readDeploymentText(join(dir, 'none.yaml')))).toBe('CONFIG_UNREADABLE');
  });
});

describe('names and strings in a deployment', () => {
  it('a name of up to 64 printable characters is accepted; longer, or with a line break, is CONFIG_INVALID naming the key', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200, unit: fc.constantFrom('a', 'Z', '-', ' ', 'é', '\n', '\t', '\u0007') }), (name) => {
        let error: unknown;
        try {
          parseDeployment(base(name), 'd.yaml', { env: {} });
        } catch (e) {
          error = e;
        }
        const printable = [...name].every((c) => c.charCodeAt(0) >= 0x20 && c.charCodeAt(0) !== 0x7f);
        if (name.length <= CONFIG_TEXT_LIMITS.nameChars && printable) expect(error).toBeUndefined();
        else {
          expect(isChainpilotError(error) && error.code).toBe('CONFIG_INVALID');
          expect((error as Error).message).toMatch(/d\.yaml:2:\d+ name: /);
          expect((error as Error).message.length).toBeLessThan(1_000); // the value is never echoed whole
        }
      }),
      fuzzParams({ numRuns: 200, seed: 2904 }),
    );
  });

  it('the 5 MB name of the issue is refused at once, its value cut short in the message', () => {
    const e = (() => {
      try {
        parseDeployment(base('n'.repeat(5_000_000)), 'd.yaml', { env: {} });
      } catch (x) {
        return x as Error & { code: string };
      }
      throw new Error('accepted');
    })();
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message.length).toBeLessThan(1_000);
    expect(e.message).toMatch(/^d\.yaml has 1 error:\n {2}- d\.yaml:2:\d+ name: a string of 5000000 characters; at most 4096 are allowed$/);
  });

  it('any string value or key longer than 4096 characters is CONFIG_INVALID naming its line; shorter ones pass the check', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4_000, max: 5_000 }), fc.boolean(), (n, asKey) => {
        const long = 'x'.repeat(n);
        // an explicit key (`? key`): YAML itself refuses implicit keys over 1024 characters
        const yaml = asKey ? `${base()}    params:\n      ? ${long}\n      : 1\n` : `${base()}store:\n  path: ./${long}\n`;
        let error: unknown;
        try {
          parseDeployment(yaml, 'd.yaml', { env: {} });
        } catch (e) {
          error = e;
        }
        const over = (asKey ? n : n + 2) > CONFIG_TEXT_LIMITS.stringChars;
        if (over) {
          expect(isChainpilotError(error) && error.code).toBe('CONFIG_INVALID');
          expect((error as Error).message).toContain(`at most ${CONFIG_TEXT_LIMITS.stringChars} are allowed`);
          expect((error as Error).message).toMatch(/d\.yaml:\d+:\d+ /);
        } else if (!asKey) expect(error).toBeUndefined();
      }),
      fuzzParams({ numRuns: 40, seed: 2905 }, [
        [4_094, false],
        [4_095, false],
        [4_096, true],
        [4_097, true],
      ]),
    );
  });
});

describe('paths and values on the command line', () => {
  it('an output directory is created level by level, or refused with CLI_BAD_PATH; never an uncoded error, never a hang', () => {
    const segment = fc.oneof(fc.constantFrom('a', 'b', '..', '.', '', 'file', 'deep'), fc.string({ maxLength: 6, unit: fc.constantFrom('x', '-', ' ', '.') }));
    writeFileSync(join(dir, 'file'), 'not a directory');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.constantFrom(dir, '/proc', '/dev/null'), (parts, root) => {
        const path = join(root, ...parts);
        let outcome: string;
        try {
          const abs = prepareDirOption('--out', path);
          outcome = statSync(abs).isDirectory() ? 'dir' : 'not a dir';
        } catch (e) {
          outcome = isChainpilotError(e) ? e.code : `uncoded ${String(e)}`;
        }
        expect(['dir', 'CLI_BAD_PATH']).toContain(outcome);
      }),
      fuzzParams({ numRuns: 150, seed: 2906 }),
    );
    expect(codeOf(() => prepareDirOption('--data-dir', '/proc/x'))).toBe('CLI_BAD_PATH');
    expect(codeOf(() => checkOutFileOption('--out', join(dir, 'missing', 'k.json')))).toBe('CLI_BAD_PATH');
    expect(codeOf(() => checkOutFileOption('--out', join(dir, 'file', 'k.json')))).toBe('CLI_BAD_PATH');
  });

  it('--log-level takes only the logger levels', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), (v) => {
        const ok = ['trace', 'debug', 'info', 'warn', 'error', 'silent'].includes(v);
        let threw = false;
        try {
          expect(logLevelOption(v)).toBe(v);
        } catch (e) {
          threw = true;
          expect((e as Error).message).toContain('expected one of trace, debug, info, warn, error, silent');
        }
        expect(threw).toBe(!ok);
      }),
      fuzzParams({ numRuns: 200, seed: 2907 }, [['nope'], ['INFO'], ['']]),
    );
  });

  it.each([
    [['validate', '/dev/zero'], 'CONFIG_FILE_TOO_LARGE: deployment file /dev/zero is larger than 1048576 bytes'],
    [['daemon', 'config/paper-sim.yaml', '--data-dir', '/proc/x'], 'CLI_BAD_PATH: --data-dir /proc/x cannot be used'],
    [['daemon', 'config/paper-sim.yaml', '--log-level', 'nope'], `CLI_BAD_OPTION: option '--log-level <level>' argument 'nope' is invalid`],
    [['wallet', 'new', '--out', '/proc/x'], 'CLI_BAD_PATH: --out /proc/x cannot be used'],
    [['backtest', 'config/paper-sim.yaml', '--data', 'x.jsonl', '--out', '/proc/x/y'], 'CLI_BAD_PATH: --out /proc/x/y cannot be used'],
    [['report', '/proc/x/report.json'], 'CLI_BAD_PATH: <report> /proc/x/report.json cannot be used: it does not exist'],
    [
      ['record', '--sim', '--rooms', 'latest', '--duration', '1s', '--out', '/dev/null/x'],
      'CLI_BAD_PATH: --out /dev/null/x cannot be used: a part of the path is not a directory',
    ],
  ])('the real binary: %j ends with a coded error', async (args, expected) => {
    const r = await cli(args);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toContain(expected);
    expect(r.stderr).not.toContain('unexpected error');
    expect(existsSync('/proc/x')).toBe(false);
  });
});
