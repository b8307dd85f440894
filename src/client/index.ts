/** The typed client for the service's REST, prediction, JSON-RPC and swap interfaces. */
export * from './service-clients.js';
export * from './http/index.js';
export * from './data-api/index.js';
export * from './prediction/index.js';
export * from './rpc/index.js';
export * from './swap/index.js';
