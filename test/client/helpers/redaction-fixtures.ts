/** Re-exports used by the redaction test, plus a valid base58 address. */
export { createLogger, createRedactor, seededRandom } from '../../../src/core/index.js';
/** A valid base58 address to use as a wallet in tests. */
export const WRAPPED_SOL_MINT_FOR_TEST = 'So11111111111111111111111111111111111111112';
