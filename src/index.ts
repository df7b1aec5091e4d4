/**
 * dpkit: differential privacy for TypeScript. This entry is browser-safe (no Node built-ins);
 * Node-only parts (files, DuckDB, the CLI) live in `dpkit/node`.
 *
 * The root exports what users call: the private releases (statistics, mechanisms), the models, the
 * accountants and their composition rules, the data-free plans of the releases, the errors and the
 * random number generators, with the types of their options and results. The building blocks
 * underneath (validation helpers, samplers, lattice and grid helpers, LP and matrix helpers, the
 * internals of the optimisers) are in `dpkit/internals`, whose names may change between minor
 * versions. The TypeDoc category of each name is set by the `@category` tag of its declaration.
 *
 * @packageDocumentation
 */

// Private statistics
export { type BothReleases, type BoundedStatOptions, type NoisyStatOptions, type StatBaseOptions, type StatMechanism, type StatNeighbors, type StatResult, type PublicSizeOption } from './statistics/common.js';
export { boundContributions, boundContributionsWithKey, type ContributionBounds, type Ident, type Sensitivities } from './statistics/contribution-bounding.js';
export { groupByDP, type ExactSumGrid, type GroupAggregateInput, type GroupAggregateOptions, type GroupByDPOptions, type GroupKey, type GroupKeySelection, type GroupPart, type GroupStatistic, type GroupedRelease, type GroupedValues } from './statistics/group-by.js';
export { histogramDP, type Histogram, type HistogramOptions } from './statistics/histogram.js';
export { meanDP, type MeanStatistic } from './statistics/mean.js';
export { type StatPlan, type ReleasePlan, type ClampedRange, type NoiseDescription } from './statistics/plan.js';
export { pooledVarDP, pooledCovDP, type PooledGuarantee, type PooledOptions, type PooledSizes, type PooledStatistic } from './statistics/pooled.js';
export { privateBounds, type PrivateBounds, type PrivateBoundsOptions, type PrivateBoundsRelease } from './statistics/private-bounds.js';
export { quantileDP, medianDP, type QuantileDPOptions, type QuantileEndpointOptions, type QuantileOptions } from './statistics/quantile.js';
export { smoothMedianDP, type MedianBoundsOptions, type SmoothMedianOptions, type SmoothMedianRelease } from './statistics/smooth-median.js';
export { tableDP, type Category, type ContingencyTable, type TableDataLevelsOptions, type TableDPOptions, type TableOptions, type TablePlan, type TableStatistic } from './statistics/table.js';
export { varDP, sdDP, covDP, type CovOptions, type CovStatistic, type VarianceOptions, type VarianceStatistic } from './statistics/variance.js';
export type { SmoothNoiseFamily } from './mechanisms/smooth-sensitivity.js';
export type { HashKey } from './random/siphash.js';

// Private models
export { ProximalCoordinateDescentDP, type CoordinateDescentFitOptions, type CoordinateDescentOptions, type CoordinateNoise, type CoordinateSampling } from './models/coordinate-descent.js';
export { DpSgdClassifier, DpSgdRegressor, type DpSgdFitOptions, type DpSgdNoise, type DpSgdOptions, type DpSgdPrivacy } from './models/dpsgd/abadi.js';
export { LaplaceSgdDP, type LaplaceSgdFitOptions, type LaplaceSgdOptions, type LaplaceSgdPrivacy, type LaplaceSgdSchedule } from './models/dpsgd/laplace-sgd.js';
export { CmsClassifier, CMS_DEFAULT_GAMMA, type ClassifierFitOptions, type ClassifierPredictOptions, type CmsModelOptions, type ErmFitInfo, type PerturbationMethod, type PreparedDesign } from './models/erm/classifier.js';
export { FunctionalLinearRegressionDP, type FunctionalLinearOptions, type FunctionalNorm } from './models/functional-linear.js';
export { KNormLogisticRegressionDP, type KNormFitOptions, type KNormLogisticFitInfo, type KNormLogisticOptions, type RowShape } from './models/knorm-logistic.js';
export { LinearClassifierDP, type LinearClassifierFitOptions, type LinearClassifierMethod, type LinearClassifierOptions } from './models/linear-classifier.js';
export { LinearRegressionDP, LINEAR_REGRESSION_DEFAULT_GAMMA, type LinearDesign, type LinearFitOptions, type LinearRegressionAdasspOptions, type LinearRegressionKstOptions, type LinearRegressionOptions } from './models/linear.js';
export { LogisticRegressionDP, type LogisticRegressionOptions } from './models/logistic.js';
export { NaiveBayesDP, type CategoricalNbParams, type GaussianNbParams, type NaiveBayesFitOptions, type NaiveBayesOptions, type NaiveBayesStatistic, type NaiveBayesType, type NoiseAdder, type NoiseFactory } from './models/naive-bayes.js';
export { opDisc, opDiscClassifier, type OpDiscClassifierOptions, type OpDiscParameters, type OpDiscRelease } from './models/oracle-perturbation/opdisc.js';
export { opSamp, opSampSync, type OpSampInput, type OpSampOptions, type OpSampParameters, type OpSampRelease } from './models/oracle-perturbation/opsamp.js';
export type { LinearOracle, OracleResult, ProjectedOracle } from './optimize/oracles/types.js';
export { rspmClassifier, type RspmOptions, type RspmRelease } from './models/oracle-perturbation/rspm.js';
export { SvmDP, type FourierFeatureMap, type SvmOptions } from './models/svm.js';
export { tuneClassificationModel, tuneLinearRegressionModel, type TunableModel, type TuneClassificationOptions, type TuneLinearRegressionOptions, type TuneResult } from './models/tuning.js';
export type { ModelRelease } from './models/model-release.js';
export type { DpSgdLoss } from './models/dpsgd/common.js';
export type { CustomRegularizer, ErmProblem, Regularizer } from './models/erm/objective.js';
export type { LossKind } from './models/erm/losses.js';
export type { ColumnMajorMatrix, MatrixInput } from './models/matrix.js';
export type { LatticeSpec, OracleStatus } from './optimize/oracles/types.js';
export type { ZeroOneMipOptions } from './optimize/oracles/mip.js';

// Mechanisms and noise calibration
export { boundedLaplaceMechanism, type BoundedLaplaceOptions } from './mechanisms/bounded-laplace.js';
export { exponentialMechanism, type ExponentialMechanismOptions } from './mechanisms/exponential.js';
export { analyticGaussianSigma, gaussianSigmaClassic, gaussianSigmaPDP, gaussianDelta } from './mechanisms/gaussian-calibration.js';
export { gaussianMechanism, type GaussianOptions } from './mechanisms/gaussian.js';
export { kNormMechanism, type KNormMechanismOptions, type KNormRelease } from './mechanisms/knorm/mechanism.js';
export { laplaceMechanism, type LaplaceOptions } from './mechanisms/laplace.js';
export { mixedNoiseMechanism, type MixedNoiseOptions, type MixedNoisePlan } from './mechanisms/mixed-noise.js';
export { dataDependentNoiseMechanism, optimizeDataDependentNoise, DataDependentNoise, type DataDependentJSON, type DataDependentOptions, type DataDependentProgress } from './mechanisms/optimal-noise/data-dependent.js';
export { OptimizedNoise, type OptimizedNoiseJSON, type SolveStats as NoiseSolveStats, type LowerBoundMethod as NoiseLowerBoundMethod } from './mechanisms/optimal-noise/distribution.js';
export { optimizedNoiseMechanism, type OptimizedNoiseOptions } from './mechanisms/optimal-noise/mechanism.js';
export { optimizeNoise, type NoiseProgress, type OptimizeNoiseOptions } from './mechanisms/optimal-noise/optimize.js';
export { compareNoise, type ComparisonResult, type ComparisonRow } from './mechanisms/optimal-noise/reference.js';
export { selectPartitions, type KeepRule, type PartitionSelectionMethod, type PartitionSelectionOptions, type PartitionSelectionPlan } from './mechanisms/partition-selection.js';
export { permuteAndFlip, type PermuteAndFlipOptions } from './mechanisms/permute-and-flip.js';
export { base2ExponentialMechanism, type Base2ExponentialOptions, type Base2Parameters } from './mechanisms/base2-exponential.js';
export { reportNoisyMax, type NoisyMaxNoise, type ReportNoisyMaxOptions } from './mechanisms/report-noisy-max.js';
export { truncatedLaplaceMechanism, type SafeTruncatedLaplacePlan, type TruncatedLaplaceOptions, type TruncatedLaplaceParameters } from './mechanisms/truncated-laplace.js';
export type { CommonMechanismOptions, MechanismPlan, PlanArgs, VectorArgs } from './mechanisms/vector-args.js';
export type { Method as OptimizeNoiseMethod } from './mechanisms/optimal-noise/engine.js';
export type { DataDependentOptionsRelease } from './mechanisms/optimal-noise/data-dependent.js';
export type { GridSpec, NoiseGrid } from './mechanisms/optimal-noise/grid.js';
export type { BuiltinNorm, ConvexBody, KNormSpec } from './mechanisms/knorm/ball.js';
export type { RejectionStats } from './mechanisms/knorm/sample.js';
export type { Loss, LossSpec } from './mechanisms/optimal-noise/loss.js';
export type { NoiseLattice } from './mechanisms/optimal-noise/lattice.js';
export type { VerifyReport } from './mechanisms/optimal-noise/verify.js';
export type { NoiseSpec } from './mechanisms/noise.js';
export type { LpBackend, LpProblem, LpResult, LpSession, LpSolveOptions, LpStatus, NewColumns, SparseRows } from './optimize/lp.js';

// Accountants, composition and privacy-loss distributions
export type { Accountant } from './accounting/accountant-interface.js';
export { PrivacyAccountant, type AccountantOptions, type LedgerEntry, type Neighbors, type PrivacyCost, type SpendRequest } from './accounting/accountant.js';
export { spendParallel, sequentialComposition, parallelComposition, advancedComposition, optimalComposition } from './accounting/composition.js';
export { discreteGaussianPld, type DiscreteGaussianPldOptions } from './accounting/pld/discrete-gaussian.js';
export { discreteLaplacePld, type DiscreteLaplacePldOptions } from './accounting/pld/discrete-laplace.js';
export { gaussianPld, type GaussianPldOptions } from './accounting/pld/gaussian.js';
export { laplacePld, type LaplacePldOptions } from './accounting/pld/laplace.js';
export { type AtomicPair, type ContinuousPair, type MechanismPair } from './accounting/pld/pair.js';
export { type LedgerAccounting, type PlanCharge, type ReleaseClaim } from './accounting/pld/plan-charge.js';
export { type PlanMechanism, type PlanPrivacyCost, type PlanPrivacyCostOptions, type PlanRelease } from './accounting/pld/plan-privacy-cost.js';
export { PrivacyLossDistribution, type PldOptions, type SubsampledPldOptions } from './accounting/pld/pld.js';
export { pureDpPld, type PureDpPldOptions } from './accounting/pld/pure-dp.js';
export { randomizedResponsePld, type RandomizedResponsePldOptions } from './accounting/pld/randomized-response.js';
export { RdpAccountant, rdpToDp, dpSgdEpsilon, calibrateDpSgdSigma, type RdpConversion } from './accounting/rdp.js';
export { ZcdpFilter, zcdpBudget, type ZcdpFilterEntry, type ZcdpFilterOptions, type ZcdpSpendRequest } from './accounting/zcdp-filter.js';
export { ZcdpAccountant, zcdpToDp, pureDpToZcdp, composeZcdp, type ZcdpConversion } from './accounting/zcdp.js';
export { formatGuarantee, privacyUnitOf } from './privacy-unit.js';
export { getDefaultAccountant, setDefaultAccountant, type Charge, type Guarantee, type NoiseMode, type Release, type ReleaseOptions, type RunSpec } from './release.js';
export type { Discretization } from './accounting/pld/discretize.js';
export type { PrivacyLossPmf } from './accounting/pld/pmf.js';

// Data-free plans of the releases and the check-then-spend runners
export { planMean } from './statistics/mean.js';
export { planPooledVar, planPooledCov } from './statistics/pooled.js';
export { planQuantile } from './statistics/quantile.js';
export { planTable } from './statistics/table.js';
export { planVariance, planCov } from './statistics/variance.js';
export { planGaussian } from './mechanisms/gaussian.js';
export { planLaplace } from './mechanisms/laplace.js';
export { planPartitionSelection } from './mechanisms/partition-selection.js';
export { planCharge } from './accounting/pld/plan-charge.js';
export { planPrivacyCost } from './accounting/pld/plan-privacy-cost.js';
export { latticeGaussianTv } from './random/lattice-gaussian-tv.js';
export { runRelease, runChecked } from './release.js';

// Random number generators
export { cryptoRng, seededRng, type Rng } from './random/rng.js';

// Errors
export { DpkitError, InvalidArgumentError, UnknownOptionError, BudgetExceededError, ConvergenceError, InfeasibleError } from './errors.js';
export { UncertifiedOracleError, type CertifiedResult, type OracleReleaseOptions, type UncertifiedPolicy } from './models/oracle-perturbation/common.js';
export type { Exact, KeysOfUnion } from './options.js';
