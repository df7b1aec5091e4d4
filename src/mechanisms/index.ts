// Public exports of src/mechanisms/ (one line per module).
export {};
export * from './exponential.js';
export * from './knorm/index.js';
export * from './noise.js';
export * from './report-noisy-max.js';
export * from './permute-and-flip.js';
export * from './laplace.js';
export * from './gaussian.js';
export * from './bounded-laplace.js';
export * from './truncated-laplace.js';
export * from './smooth-sensitivity.js';
export * from './mixed-noise.js';
export * from './optimal-noise/index.js';
export * from './partition-selection.js';
