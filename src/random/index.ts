export * from './rng.js';
export * from './continuous.js';
