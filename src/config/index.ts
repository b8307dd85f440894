/** Deployment configuration: schema, loader, effective config and JSON Schema. */
export * from './schema.js';
export * from './load-deployment.js';
export * from './effective-config.js';
export * from './json-schema.js';
export * from './limits.js';
export * from './overrides.js';
