// Public exports of src/models/ (one line per module).
export {};
export {
  checkColumnBounds, checkMatrix, checkMatrixShape, checkMatrixShapeOrEmpty, checkVectorShape, columnMajor, type ColumnMajorMatrix, lengthOf,
  type MatrixInput, matrixShape, toRowMajor, toVector,
} from './matrix.js';
export {
  type CustomRegularizer, huberLoss, huberLossDeriv, logisticLoss, logisticLossDeriv, lossCurvature, type LossKind, type Regularizer, sigmoid,
} from './erm/index.js';
export {
  checkCmsModelOptions, type ClassifierFitOptions, type ClassifierPredictOptions, CMS_DEFAULT_GAMMA, CMS_MODEL_OPTIONS, CmsClassifier,
  type CmsModelOptions, type ErmFitInfo, type PerturbationMethod, type PreparedDesign,
} from './erm/classifier.js';
export { linearScores, LogisticRegressionDP, type LogisticRegressionOptions } from './logistic.js';
export { applyFourierFeatures, drawFourierFeatures, type FourierFeatureMap, SvmDP, type SvmOptions } from './svm.js';
export {
  checkLinearRegressionInput, LINEAR_REGRESSION_DEFAULT_GAMMA, type LinearDesign, type LinearFitOptions, type LinearRegressionAdasspOptions,
  LinearRegressionDP, type LinearRegressionKstOptions, type LinearRegressionOptions, prepareLinearRegression,
} from './linear.js';
export {
  DpSgdClassifier, type DpSgdFitOptions, type DpSgdLoss, type DpSgdNoise, type DpSgdOptions, type DpSgdPrivacy, DpSgdRegressor, LaplaceSgdDP,
  type LaplaceSgdFitOptions, laplaceSgdNoiseScales, type LaplaceSgdOptions, type LaplaceSgdPrivacy, type LaplaceSgdSchedule, runDpSgd,
} from './dpsgd/index.js';
export {
  type CategoricalNbParams, type GaussianNbParams, laplaceNoiseFactory, NaiveBayesDP, type NaiveBayesFitOptions, type NaiveBayesOptions,
  type NaiveBayesStatistic, type NaiveBayesType, type NoiseAdder, type NoiseFactory,
} from './naive-bayes.js';
export {
  checkRowShape, type KNormFitOptions, type KNormLogisticFitInfo, type KNormLogisticOptions, KNormLogisticRegressionDP, readRowValues, readUnitRows,
  type RowShape,
} from './knorm-logistic.js';
export {
  type FunctionalLinearOptions, FunctionalLinearRegressionDP, type FunctionalNorm, functionalRecordContribution, functionalRegressionBody,
  functionalRegressionCoefficients, functionalRegressionSensitivity, functionalStatistic, functionalStatisticDimension, perturbFunctionalStatistic,
} from './functional-linear.js';
export {
  type TunableModel, tuneClassificationModel, type TuneClassificationOptions, tuneLinearRegressionModel, type TuneLinearRegressionOptions, type TuneResult,
} from './tuning.js';
export {
  type CertifiedResult, checkPolicy, classificationData, classificationShape, opDisc, opDiscClassifier, type OpDiscClassifierOptions,
  type OpDiscParameters, type OpDiscRelease, opDiscSigma, opDiscUtilityBound, opSamp, type OpSampInput, type OpSampOptions, opSampParameters,
  type OpSampParameters, type OpSampRelease, opSampSync, opSampUtilityBound, type OracleReleaseOptions, placeholderData, rspmClassifier,
  type RspmOptions, type RspmRelease, rspmSigma, rspmWeightedData, runOracleRelease, UncertifiedOracleError, type UncertifiedPolicy,
} from './oracle-perturbation/index.js';
export {
  COORDINATE_GRADIENT_SENSITIVITY, type CoordinateDescentFitOptions, type CoordinateDescentOptions, type CoordinateNoise, type CoordinateSampling,
  ProximalCoordinateDescentDP,
} from './coordinate-descent.js';
export { LinearClassifierDP, type LinearClassifierFitOptions, type LinearClassifierMethod, type LinearClassifierOptions } from './linear-classifier.js';
export { exactMinimiserAssumption, type ModelRelease, rowGuarantee } from './model-release.js';
