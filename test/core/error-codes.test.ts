import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/core/error-codes.js';

/** Every .ts file under `dir` (relative to the repository), except `skip`, as one text. */
function sources(dir: string, skip: string): string {
  const root = new URL(`../../${dir}/`, import.meta.url);
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && `${dir}/${f}` !== skip)
    .map((f) => readFileSync(new URL(f, root), 'utf8'))
    .join('\n');
}

/**
 * Codes no test names yet (found when issue 18 added this check). It is empty now and stays so: a
 * new code comes with a test that asserts it.
 */
const NOT_YET_TESTED: readonly string[] = [];

describe('error codes', () => {
  const defined = Object.keys(ERROR_CODES);

  it('are documented in docs/errors.md, one row each, and docs name no code the source lacks', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual([...defined].sort());
  });

  it('use one UPPER_SNAKE form with an area prefix', () => {
    for (const code of defined) {
      expect(code).toMatch(
        /^(CORE|HTTP|API|PREDICTION|RPC|SWAP|STREAM|ENGINE|RISK|STRATEGY|CONFIG|EXEC|JOURNAL|PAPER|LIVE|QUEUE|SIM|LEDGER|RUNTIME|CLI|RECORDING|BACKTEST)_[A-Z0-9_]+$/,
      );
    }
  });

  it('are each raised somewhere in src: the registry lists no dead code', () => {
    const src = sources('src', 'src/core/error-codes.ts');
    expect(defined.filter((code) => !new RegExp(`['"\`]${code}(['"\`]|: )`).test(src))).toEqual([]);
  });

  it('are each named by a test, except the shrinking list of codes not yet tested', () => {
    const tests = sources('test', 'test/core/error-codes.test.ts');
    const untested = defined.filter((code) => !new RegExp(`\\b${code}\\b`).test(tests));
    expect(
      untested.filter((code) => !NOT_YET_TESTED.includes(code)),
      'codes with no test',
    ).toEqual([]);
    expect(
      NOT_YET_TESTED.filter((code) => !defined.includes(code)),
      'NOT_YET_TESTED names codes the registry lacks',
    ).toEqual([]);
    expect(
      NOT_YET_TESTED.filter((code) => !untested.includes(code)),
      'a test names these now: delete them from NOT_YET_TESTED',
    ).toEqual([]);
  });
});
