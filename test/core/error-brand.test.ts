/**
 * One process can hold two copies of core/errors (a user's strategy imports `chainpilot/strategy`
 * from dist/ while a command runs from its esbuild bundle): an error made by either copy is a
 * ChainpilotError to both, so retry classes and codes are read the same whichever copy threw it.
 */
import { describe, expect, it } from 'vitest';
import { ChainpilotError, describeError, isChainpilotError } from '../../src/core/errors.js';
import type * as ErrorsModule from '../../src/core/errors.js';

describe('ChainpilotError across copies of its module', () => {
  it('is recognised by instanceof, isChainpilotError and describeError of the other copy', async () => {
    // a second instance of the same module (another module id), as a bundle and dist/ are
    const secondCopy = '../../src/core/errors.ts?second-copy';
    const other = (await import(secondCopy)) as typeof ErrorsModule;
    expect(other.ChainpilotError).not.toBe(ChainpilotError);
    const theirs = new other.ChainpilotError('LIVE_JOURNAL_UNAVAILABLE', 'journal down', { retry: 'retryable' });
    const ours = new ChainpilotError('RISK_TRADE_SIZE', 'too big', { retry: 'not_retryable' });
    expect(theirs instanceof ChainpilotError).toBe(true);
    expect(ours instanceof other.ChainpilotError).toBe(true);
    expect(isChainpilotError(theirs, 'LIVE_JOURNAL_UNAVAILABLE')).toBe(true);
    expect(describeError(theirs)).toBe('LIVE_JOURNAL_UNAVAILABLE: journal down');
  });

  it('is not claimed by lookalikes: plain errors and objects with the same fields', () => {
    const lookalike = Object.assign(new Error('x'), { name: 'ChainpilotError', code: 'RISK_TRADE_SIZE', retry: 'retryable' });
    expect(lookalike instanceof ChainpilotError).toBe(false);
    expect({ code: 'RISK_TRADE_SIZE' } instanceof ChainpilotError).toBe(false);
    const nothing: unknown = null;
    expect(nothing instanceof ChainpilotError).toBe(false);
    expect(new ChainpilotError('RISK_TRADE_SIZE', 'm', { retry: 'retryable' }) instanceof Error).toBe(true);
  });
});
