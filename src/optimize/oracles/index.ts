// Public exports of src/optimize/oracles/ (optimisation oracles for objective perturbation).
export * from './types.js';
export * from './mip.js';
export * from './enumeration.js';
export * from './convex.js';
