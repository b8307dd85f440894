export * from './commitment.js';
export * from './rpc-types.js';
export * from './rpc-client.js';
export * from './rpc-v2.js';
export { readRpcError, type RpcBatchItem } from './rpc-transport.js';
