/** Helpers for asserting coded errors in client tests. */
import { isChainpilotError, type ChainpilotError } from '../../../src/core/index.js';

/** Awaits `p` and returns the ChainpilotError it rejects with; fails when it resolves or throws anything else. */
export async function caught(p: Promise<unknown>): Promise<ChainpilotError> {
  try {
    await p;
  } catch (e) {
    if (isChainpilotError(e)) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}
