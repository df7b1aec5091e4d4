// Public exports of src/optimize/ (one line per module).
export { type LbfgsOptions, type LbfgsResult, minimizeLbfgs, minimizeProjected, type ObjectiveGradient } from './lbfgs.js';
export { ballProjection, boxProjection } from './projections.js';
export {
  type HighsLoader, type HighsModelArrays, highsModelData, highsOptionRecord, HighsSession, inProcessLpBackend, loadHighs, type LpBackend, LpBuilder,
  type LpProblem, type LpResult, type LpSession, type LpSolveOptions, type LpStatus, lpStatusFromHighs, type NewColumns, openLpSession,
  requireOptimal, setHighsLoader, solveLp, type SparseRows, toHighsArrays, validateRows,
} from './lp.js';
export {
  buildZeroOneMip, checkClassificationData, checkMargin, type ClassificationData, type ConvexData, convexLoss, type ConvexLoss, convexLossConstants,
  convexLpOracle, type ConvexOracleOptions, enumeratedArgmin, type EnumeratedProblem, enumerateLattice, enumerateProblem, ENUMERATION_MAX_POINTS,
  enumerationLinearOracle, enumerationProjectedOracle, type Lattice, type LatticeSpec, type LinearOracle, makeLattice, type OracleResult,
  type OracleStatus, type ProjectedOracle, projectToSphere, smoothLbfgsOracle, smoothLbfgsSolver, solveZeroOneMip, weightedZeroOneOracle,
  zeroOneLinearOracle, zeroOneLoss, type ZeroOneMipOptions, zeroOneObjective, type ZeroOneObjective, zeroOneProjectedOracle,
} from './oracles/index.js';
