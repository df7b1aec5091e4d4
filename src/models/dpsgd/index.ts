// Public exports of src/models/dpsgd/.
export * from './abadi.js';
export { type DpSgdLoss } from './common.js';
export * from './laplace-sgd.js';
