// Public exports of src/models/erm/: the losses and the regularizer types only. The mechanisms
// (cms.ts, kst.ts), the solver (objective.ts) and the samplers (noise.ts) are internal building
// blocks of the models (LogisticRegressionDP, SvmDP, LinearRegressionDP) and are imported by path
// in tests: they return unreleasable intermediates and take no { rng, accountant }.
export { huberLoss, huberLossDeriv, logisticLoss, logisticLossDeriv, lossCurvature, type LossKind, sigmoid } from './losses.js';
export type { CustomRegularizer, Regularizer } from './objective.js';
