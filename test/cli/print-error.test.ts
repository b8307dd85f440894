/** How the CLI reports failures: `CODE: message` and a hint for coded errors, one function for all commands. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChainpilotError } from '../../src/core/errors.js';
import { ERROR_CODES } from '../../src/core/error-codes.js';
import { errorHint, formatCliError } from '../../src/cli/print-error.js';
import { parseFunding } from '../../src/runtime/shell/funding.js';
import { validateDeploymentFile } from '../../src/runtime/shell/validate-deployment.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-cli-errors-'));
const deployment = (name: string, strategies: string): string => {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `version: 1\nname: ${name}\nendpoints:\n  simulator: { seed: 1 }\nstrategies:\n${strategies}`);
  return file;
};

describe('CLI error output', () => {
  it('prints a coded error as CODE: message, then a hint with the meaning from the registry', () => {
    const text = formatCliError(new ChainpilotError('CLI_BAD_OPTION', '--fund x: use ADDRESS=SOL', { retry: 'not_retryable' }));
    expect(text).toBe(`CLI_BAD_OPTION: --fund x: use ADDRESS=SOL\nhint: ${ERROR_CODES.CLI_BAD_OPTION} (see docs/errors.md, CLI_BAD_OPTION)\n`);
    expect(errorHint('CONFIG_INVALID')).toContain(ERROR_CODES.CONFIG_INVALID);
  });

  it('prints an uncoded error as unexpected, with its message', () => {
    expect(formatCliError(new Error('boom'))).toBe('chainpilot: unexpected error: boom\n');
  });

  it('rejects a malformed --fund value with CLI_BAD_OPTION naming the expected form', () => {
    expect(() => parseFunding('7xKX=abc')).toThrow(
      expect.objectContaining({ code: 'CLI_BAD_OPTION', message: expect.stringContaining('ADDRESS=SOL') as string }),
    );
  });
});

describe('strategy errors of a deployment', () => {
  it('reports only unknown strategies as STRATEGY_UNKNOWN', async () => {
    const r = await validateDeploymentFile(deployment('unknown', '  - use: no-such-strategy\n'));
    expect(r).toMatchObject({ ok: false, code: 'STRATEGY_UNKNOWN' });
    expect(r.text).toMatch(/^STRATEGY_UNKNOWN: .*1 strategy error/);
  });

  it('reports only bad parameters as STRATEGY_INVALID_PARAMS', async () => {
    const r = await validateDeploymentFile(deployment('params', '  - use: curve-momentum\n    params: { milestonePct: 500 }\n'));
    expect(r).toMatchObject({ ok: false, code: 'STRATEGY_INVALID_PARAMS' });
  });

  it('reports a strategy file that exports no strategy as STRATEGY_LOAD_FAILED', async () => {
    writeFileSync(join(dir, 'empty.ts'), 'export const nothing = 1;\n');
    const r = await validateDeploymentFile(deployment('load', '  - use: ./empty.ts\n'));
    expect(r).toMatchObject({ ok: false, code: 'STRATEGY_LOAD_FAILED' });
    expect(r.text).toContain('exports no strategy');
  });

  it('reports a mix of strategy problems as CONFIG_INVALID listing each', async () => {
    const r = await validateDeploymentFile(deployment('mix', '  - use: no-such-strategy\n  - use: curve-momentum\n    params: { milestonePct: 500 }\n'));
    expect(r).toMatchObject({ ok: false, code: 'CONFIG_INVALID' });
    expect(r.text).toContain('2 strategy errors');
  });
});
