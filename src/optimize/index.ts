// Public exports of src/optimize/ (one line per module).
export * from './lbfgs.js';
export * from './projections.js';
export * from './lp.js';
export * from './oracles/index.js';
