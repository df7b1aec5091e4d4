// Public exports of src/models/dpsgd/.
export { DpSgdClassifier, type DpSgdFitOptions, type DpSgdNoise, type DpSgdOptions, type DpSgdPrivacy, DpSgdRegressor, runDpSgd } from './abadi.js';
export { type DpSgdLoss } from './common.js';
export {
  LaplaceSgdDP, type LaplaceSgdFitOptions, laplaceSgdNoiseScales, type LaplaceSgdOptions, type LaplaceSgdPrivacy, type LaplaceSgdSchedule,
} from './laplace-sgd.js';
