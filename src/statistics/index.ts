// Public exports of src/statistics/ (one line per module).
export type { BoundedStatOptions, BothReleases, NoisyStatOptions, StatBaseOptions, StatMechanism, StatNeighbors, StatResult } from './common.js';
export * from './mean.js';
export * from './variance.js';
export * from './pooled.js';
export { histogramDP, type Histogram, type HistogramOptions } from './histogram.js';
export * from './table.js';
export * from './quantile.js';
export * from './smooth-median.js';
export * from './contribution-bounding.js';
export * from './private-bounds.js';
export * from './group-by.js';
