export * from './swap-request.js';
export * from './swap-client.js';
