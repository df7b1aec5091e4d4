// Public exports of src/models/erm/.
export * from './losses.js';
export * from './noise.js';
export * from './objective.js';
export * from './cms.js';
export * from './kst.js';
