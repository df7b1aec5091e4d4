// Optimal noise distributions by linear programming (Selvi, Liu & Wiesemann, "Differential Privacy via Distributionally Robust Optimization").
export { resolveLoss as resolveNoiseLoss, type Loss as NoiseLoss, type LossSpec as NoiseLossSpec } from './loss.js';
export { makeGrid as makeNoiseGrid, uniformGrid as uniformNoiseGrid, refinedGrid as refinedNoiseGrid, type GridSpec as NoiseGridSpec, type NoiseGrid } from './grid.js';
export { AliasTable } from './alias.js';
export { OptimizedNoise, type OptimizedNoiseJSON, type SolveStats as NoiseSolveStats, type LowerBoundMethod as NoiseLowerBoundMethod } from './distribution.js';
export { expLowerBound, verifyDensity, type VerifyReport as NoiseVerifyReport } from './verify.js';
export { optimizeNoise, truncatedLaplaceSupport, type NoiseProgress, type OptimizeNoiseOptions } from './optimize.js';
export { optimizedNoiseMechanism, noiseHalfWidth as optimizedNoiseHalfWidth, type OptimizedNoiseOptions } from './mechanism.js';
export {
  analyticGaussianExpectedLoss,
  classicGaussianExpectedLoss,
  compareNoise,
  laplaceExpectedLoss,
  staircaseExpectedLoss,
  staircaseExpectedLossAt,
  truncatedLaplaceExpectedLoss,
  type ComparisonResult,
  type ComparisonRow,
} from './reference.js';
export {
  DataDependentNoise,
  dataDependentNoiseMechanism,
  groupedCells,
  optimizeDataDependentNoise,
  uniformCells,
  verifyDataDependent,
  type DataDependentJSON,
  type DataDependentOptions,
  type DataDependentProgress,
} from './data-dependent.js';
export { stepPlotSvg, type StepPlotOptions, type StepSeries } from './plot.js';
export { optimizedNoiseFactory, truncatedLaplaceNoiseFactory, type AdditiveNoiseAdder, type AdditiveNoiseFactory } from './noise-adders.js';
export { latticeExponent as noiseLatticeExponent, NoiseLattice, LATTICE_BITS as NOISE_LATTICE_BITS } from './lattice.js';
