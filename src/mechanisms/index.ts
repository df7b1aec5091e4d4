// Public exports of src/mechanisms/ (one line per module).
export {};
export {
  exponentialMechanism, exponentialMechanismAccuracy, type ExponentialMechanismOptions, exponentialMechanismProbabilities, sampleLogLinearIndex,
} from './exponential.js';
export {
  type BuiltinNorm, type CandidateNorm, type CandidateReport, certifyBox, checkNormSpec, checkRejectionFeasible, compareKNorms, type ConvexBody,
  convexHull2D, convexHullHV, coordinateBounds, gammaQuantile, gauge, hullVolume, type HVPolytope, type KNormComparison, kNormEntropy, kNormMechanism,
  type KNormMechanismOptions, type KNormRelease, type KNormSpec, knownAcceptance, lpBallLogVolume, lpBallVolume, monteCarloVolume, normL1, normL2,
  normLinf, padBox, polygonArea, Polytope, type PolytopeForm, polytopeVolume, type RejectionOptions, type RejectionStats, sampleKNormInto,
  sampleKNormNoise, sampleUniformInBody, sensitivitySpace, type SensitivitySpaceSpec, verticesFromHalfspaces, volume3D, type VolumeEstimate,
} from './knorm/index.js';
export {
  addCheckedNoise, addGaussianNoise, addLaplaceNoise, checkNoiseInputs, effectiveNoiseScales, fitsNoise, type NoiseKind, type NoiseLayout,
  type NoiseMode, type NoiseSpec, planNoiseLayout, planNoiseSpec,
} from './noise.js';
export {
  noisyArgmax, type NoisyMaxNoise, reportNoisyMax, reportNoisyMaxAccuracy, type ReportNoisyMaxOptions, reportNoisyMaxScale,
} from './report-noisy-max.js';
export { permuteAndFlip, permuteAndFlipAccuracy, type PermuteAndFlipOptions, permuteAndFlipProbabilities } from './permute-and-flip.js';
export { base2ExponentialMechanism, type Base2ExponentialOptions, type Base2Parameters, planBase2Exponential } from './base2-exponential.js';
export { laplaceMechanism, type LaplaceOptions, laplaceScale, planLaplace } from './laplace.js';
export {
  analyticGaussianSigma, gaussianDelta, gaussianMechanism, type GaussianOptions, gaussianSigmaClassic, gaussianSigmaPDP, gaussianSigmaZCDP,
  planGaussian,
} from './gaussian.js';
export {
  boundedLaplaceDeltaC, boundedLaplaceMechanism, type BoundedLaplaceOptions, boundedLaplaceScale, safeBoundedLaplacePlan, type SafeBoundedLaplacePlan, sampleBoundedLaplace,
  sampleSafeBoundedLaplace,
} from './bounded-laplace.js';
export {
  checkNeighborsLabel, safeTruncatedLaplacePlan, type SafeTruncatedLaplacePlan, safeTruncatedLaplaceSampler, sampleTruncatedLaplace,
  truncatedLaplaceMechanism, type TruncatedLaplaceOptions, truncatedLaplaceParameters, type TruncatedLaplaceParameters,
} from './truncated-laplace.js';
export {
  gaussianHockeyStick, heavyTailedCdf, heavyTailedHalfWidth, heavyTailedNormalizer, sampleHeavyTailed, type SmoothCalibration,
  smoothGaussianProfileDelta, type SmoothNoiseFamily, smoothSensitivityCalibration,
} from './smooth-sensitivity.js';
export { mixedNoiseMechanism, type MixedNoiseOptions, mixedNoisePlan, type MixedNoisePlan } from './mixed-noise.js';
export {
  type AdditiveNoiseAdder, type AdditiveNoiseFactory, AliasTable, analyticGaussianExpectedLoss, classicGaussianExpectedLoss, compareNoise,
  type ComparisonResult, type ComparisonRow, type DataDependentJSON, DataDependentNoise, dataDependentNoiseMechanism, type DataDependentOptions,
  type DataDependentProgress, expLowerBound, groupedCells, laplaceExpectedLoss, makeNoiseGrid, NOISE_LATTICE_BITS, type NoiseGrid, type NoiseGridSpec,
  NoiseLattice, noiseLatticeExponent, type NoiseLoss, type NoiseLossSpec, type NoiseProgress, type NoiseSolveStats, type NoiseVerifyReport,
  optimizeDataDependentNoise, OptimizedNoise, optimizedNoiseFactory, optimizedNoiseHalfWidth, type OptimizedNoiseJSON, optimizedNoiseMechanism,
  type OptimizedNoiseOptions, optimizeNoise, type OptimizeNoiseOptions, refinedNoiseGrid, resolveNoiseLoss, staircaseExpectedLoss,
  staircaseExpectedLossAt, type StepPlotOptions, stepPlotSvg, type StepSeries, truncatedLaplaceExpectedLoss, truncatedLaplaceNoiseFactory,
  truncatedLaplaceSupport, uniformCells, uniformNoiseGrid, verifyDataDependent, verifyDensity,
} from './optimal-noise/index.js';
export {
  gaussianThreshold, type KeepRule, laplaceThreshold, MAX_TABLE, optimalKeepTable, type PartitionSelectionMethod, type PartitionSelectionOptions,
  type PartitionSelectionPlan, perKeyBudget, planPartitionSelection, selectPartitions,
} from './partition-selection.js';
