export * from './prediction-client.js';
export * from './prediction-schemas.js';
