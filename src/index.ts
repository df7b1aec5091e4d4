/**
 * dpkit: differential privacy for TypeScript. This entry is browser-safe (no Node built-ins);
 * Node-only parts (files, DuckDB, the CLI) live in `dpkit/node`.
 */
export * from './errors.js';
export * from './validation.js';
export * from './release.js';
export * from './privacy-unit.js';
export * from './random/index.js';
export * from './accounting/index.js';
export * from './mechanisms/index.js';
export * from './statistics/index.js';
export * from './models/index.js';
export * from './optimize/index.js';
