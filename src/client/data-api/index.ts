export * from './data-api-client.js';
export * from './schemas.js';
export * from './limits.js';
export type * from './tokens.js';
export type * from './prices.js';
export type * from './trades.js';
export type * from './holders.js';
export type * from './dca.js';
export type * from './pnl.js';
