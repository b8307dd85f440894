/** The example of docs/client.md (the telemetry observer); checked by test/docs/doc-examples.test.ts, compiled by the typecheck. */
import type { ErrorCode, HttpTelemetry as Real } from '../../../src/index.js';
// #region doc
interface HttpTelemetry {
  /** One call ended: `ok`, or the error code the caller got. */
  request?(api: string, method: string, seconds: number, outcome: 'ok' | 'unknown' | ErrorCode): void;
  /** A read is about to be retried after HTTP `status` (undefined: a timeout or a network error). */
  retry?(api: string, status: number | undefined): void;
}
// #endregion doc
// The documented shape is the exported one, both ways.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const same: Same<HttpTelemetry, Real> = true;
