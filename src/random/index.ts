export * from './rng.js';
