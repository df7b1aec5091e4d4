export { cryptoRng, defaultRng, resolveRng, type Rng, seededRng } from './rng.js';
export {
  fillExponential, fillLaplace, fillNormal, sampleChi, sampleExponential, sampleGamma, sampleGumbel, sampleLaplace, sampleLpBall, sampleNormal,
  sampleUniform, sampleUnitSphere,
} from './continuous.js';
export {
  bernoulliBits, bernoulliExpBits, bernoulliFrac, BitSource, discreteGaussianIntSigmaSampler, discreteGaussianSampler, discreteLaplaceIntSampler,
  discreteLaplaceSampler, type IntSampler, isqrt, sampleBernoulliExp, sampleBernoulliRational, sampleDiscreteGaussian, sampleDiscreteLaplace,
  uniformBelow,
} from './exact.js';
export {
  addGridNoise, addIntegerNoise, checkGridRange, checkIntegers, DEFAULT_GRID_BITS, doubleToRational, exactGaussianSampler, exactLaplaceSampler,
  floorLog2, GAUSSIAN_MARGIN, gridExponent, type GridPlan, gridSampler, planGaussianGrid, planLaplaceGrid,
} from './lattice.js';
export { checkLatticeGaussianMargin, LATTICE_GAUSSIAN_MIN_SCALE, latticeGaussianTv, latticeMarginCovers, logGaussianDeltaDecrease } from './lattice-gaussian-tv.js';
export { freshHashKey, type HashKey, hashKeyFromBytes, keyedHash53, sipHash24 } from './siphash.js';
export { bernoulliDyadic } from './bernoulli-dyadic.js';
export {
  checkSelectionGrid, exponentialRejectionIndex, permuteAndFlipFloatIndex, permuteAndFlipIndex, planSelectionGrid, roundUtilitiesToGrid,
  SELECTION_GRID_BITS, type SelectionGridPlan,
} from './exact-selection.js';
