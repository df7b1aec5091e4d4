/**
 * `dpkit/internals`: every building block of dpkit, including what the root entry (`dpkit`) does
 * not export: validation helpers, samplers, lattice and grid helpers, LP, matrix and geometry
 * helpers, the internals of the optimisers and of the oracle releases. For tests, benchmarks and
 * research code; these names may change between minor versions. Browser-safe like the root.
 *
 * @packageDocumentation
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
