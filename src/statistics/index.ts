// Public exports of src/statistics/ (one line per module).
export type { BoundedStatOptions, BothReleases, NoisyStatOptions, StatBaseOptions, StatMechanism, StatNeighbors, StatResult } from './common.js';
export { meanDP, type MeanStatistic, planMean } from './mean.js';
export {
  COV_OPTIONS, covDP, type CovOptions, type CovStatistic, planCov, planVariance, sdDP, varDP, type VarianceOptions, type VarianceStatistic,
} from './variance.js';
export {
  planPooledCov, planPooledVar, pooledCovDP, type PooledGuarantee, type PooledOptions, type PooledSizes, type PooledStatistic, pooledVarDP,
} from './pooled.js';
export { histogramDP, type Histogram, type HistogramOptions } from './histogram.js';
export { type Category, type ContingencyTable, planTable, TABLE_DATA_LEVELS_MARK, tableDP, type TableDataLevelsOptions, type TableDPOptions, type TableOptions, type TablePlan, type TableStatistic } from './table.js';
export {
  medianDP, planQuantile, QUANTILE_ENDPOINT_MECHANISM, quantileDP, type QuantileDPOptions, type QuantileEndpointOptions, quantileFromSorted,
  type QuantileOptions,
} from './quantile.js';
export {
  gridToDouble, localSensitivityMedian, type MedianBoundsOptions, roundToGrid, smoothMedianDP, type SmoothMedianOptions, type SmoothMedianRelease,
  smoothSensitivityMedian, smoothSensitivityMedianSorted,
} from './smooth-median.js';
export {
  boundContributions, boundContributionsWithKey, checkContributionBounds, type ContributionBounds, type Ident, MAX_BOUND, rowSensitivities,
  type Sensitivities, unitTotalSensitivities,
} from './contribution-bounding.js';
export {
  binEdges, magnitudeBin, privateBounds, type PrivateBounds, privateBoundsFromCounts, type PrivateBoundsCountOptions, privateBoundsFromValueCounts, type PrivateBoundsOptions,
  type PrivateBoundsRelease, type QuantileBoundsCountOptions,
} from './private-bounds.js';
export {
  type ExactSumGrid, type GroupAggregateInput, type GroupAggregateOptions, groupByDP, type GroupByDPOptions, type GroupedRelease, type GroupedValues, type GroupKey,
  type GroupKeySelection, type GroupPart, type GroupStatistic, MAX_BINS, MAX_KEYS, quantilesFromHistogram, releaseGroupAggregates,
} from './group-by.js';
