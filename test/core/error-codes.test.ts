import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/core/error-codes.js';

describe('error codes', () => {
  it('are documented in docs/errors.md, one row each, and docs name no code the source lacks', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    const defined = Object.keys(ERROR_CODES);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual([...defined].sort());
  });

  it('use one UPPER_SNAKE form with an area prefix', () => {
    for (const code of Object.keys(ERROR_CODES)) {
      expect(code).toMatch(/^(CORE|HTTP|API|PREDICTION|RPC|SWAP|STREAM|ENGINE|RISK|STRATEGY|CONFIG|EXEC|JOURNAL|PAPER|LIVE|QUEUE|SIM|LEDGER|RUNTIME|CLI|RECORDING|BACKTEST)_[A-Z0-9_]+$/);
    }
  });
});
