// Public exports of src/mechanisms/knorm/.
export * from './ball.js';
export * from './geometry.js';
export * from './polytope.js';
export * from './sample.js';
export * from './mechanism.js';
export * from './compare.js';
