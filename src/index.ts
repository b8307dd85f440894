/**
 * chainpilot's public entry. Users script against the service with the typed clients, write
 * strategies against the strategy API, and run deployments through the runtime.
 */
export * from './core/index.js';
export type * from './engine/execution-port.js';
export type * from './engine/feed-port.js';
export * from './client/index.js';
