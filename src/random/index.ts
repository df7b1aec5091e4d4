export * from './rng.js';
export * from './continuous.js';
export * from './exact.js';
export * from './lattice.js';
export * from './siphash.js';
export * from './bernoulli-dyadic.js';
export * from './exact-selection.js';
