/**
 * What the daemon's main thread and its front thread (front-thread.ts, front-worker.ts) tell each
 * other. Times are `Date.now()` (one wall clock for both threads).
 */

/** How often the front thread reports its event-loop delay (wall ms). */
export const LAG_REPORT_MS = 5_000;

/** The front thread's `workerData`. */
export interface FrontData {
  readonly host: string;
  readonly port: number;
  /** Loopback port of the control app on the main thread, where every other request is passed on. */
  readonly backendPort: number;
  readonly token: string;
  /** The GET paths answered from a copy (`/metrics`, `/api/deployments`). */
  readonly paths: readonly string[];
  /** How old a copy's data may be and still be served at once (wall ms). */
  readonly staleMs: number;
}

/** A copy of one GET answer of the control app. */
export interface FrontAnswer {
  readonly kind: 'answer';
  readonly path: string;
  /** The main thread's change count when it began the answer: it shows every discrete change up to it. */
  readonly gen: number;
  readonly status: number;
  readonly contentType: string;
  /** How old the answer's data was when it was made (`x-metrics-age-ms` of `/metrics`; 0 for the list). */
  readonly ageMs: number;
  /** When it was made. */
  readonly at: number;
  readonly body: Uint8Array;
  /** True for the answer to a `want`; false for a render the main thread sends unasked. */
  readonly asked: boolean;
}

/** Main thread → front thread. */
export type ToFront = FrontAnswer | { readonly kind: 'changed'; readonly gen: number } | { readonly kind: 'close' };

/** Front thread → main thread. */
export type FromFront =
  | { readonly kind: 'want'; readonly path: string }
  | { readonly kind: 'listening'; readonly address: string; readonly family: string; readonly port: number }
  | { readonly kind: 'listen-failed'; readonly message: string }
  | { readonly kind: 'proxy-failed'; readonly method: string; readonly path: string; readonly message: string }
  | { readonly kind: 'lag'; readonly p99Seconds: number; readonly maxSeconds: number }
  | { readonly kind: 'closed' };
