// Public exports of src/optimize/oracles/ (optimisation oracles for objective perturbation).
export {
  checkClassificationData, checkMargin, type ClassificationData, type Lattice, type LatticeSpec, type LinearOracle, makeLattice, type OracleResult,
  type OracleStatus, type ProjectedOracle, projectToSphere, zeroOneLoss,
} from './types.js';
export {
  buildZeroOneMip, solveZeroOneMip, weightedZeroOneOracle, zeroOneLinearOracle, type ZeroOneMipOptions, zeroOneObjective, type ZeroOneObjective,
  zeroOneProjectedOracle,
} from './mip.js';
export {
  enumeratedArgmin, type EnumeratedProblem, enumerateLattice, enumerateProblem, ENUMERATION_MAX_POINTS, enumerationLinearOracle,
  enumerationProjectedOracle,
} from './enumeration.js';
export {
  type ConvexData, convexLoss, type ConvexLoss, convexLossConstants, convexLpOracle, type ConvexOracleOptions, smoothLbfgsOracle, smoothLbfgsSolver,
} from './convex.js';
