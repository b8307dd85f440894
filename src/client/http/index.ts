export * from './http-client.js';
export * from './pool-registry.js';
export * from './error-body.js';
export * from './retry-after.js';
export * from './lossless-json.js';
export type { CallOptions, Query, ApiContext } from './rest-context.js';
export * from './http-status.js';
export * from './http-telemetry.js';
export * from './body-budget.js';
