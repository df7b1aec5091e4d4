/**
 * The types of a `dpkit run` plan and its results, in their own module so that the parser
 * (analysis.ts), the executor (execute.ts), the models (models.ts), the CLI and the report share them
 * without importing each other: the schema (public bounds, levels, missing-value policies), the
 * release specs of an analysis file, and the released results.
 */
import type { Neighbors } from '../accounting/accountant.js';
import type { PrivacyAccountant } from '../accounting/accountant.js';
import type { Rng } from '../random/rng.js';
import type { DataSourceSpec, MissingPolicy } from './data.js';

export interface NumericColumn {
  name: string;
  type: 'numeric';
  lower: number;
  upper: number;
  missing: MissingPolicy;
  /** Public default number of histogram bins for `describe`. */
  bins: number;
  /** True when lower/upper were computed from the data (`--bounds-from-data`): NOT private. */
  fromData?: boolean;
}

export interface CategoricalColumn {
  name: string;
  type: 'categorical';
  levels: string[];
  missing: MissingPolicy;
  fromData?: boolean;
}

export type ColumnSchema = NumericColumn | CategoricalColumn;

export interface DataSchema {
  file: string;
  columns: Map<string, ColumnSchema>;
}

export type NoiseMechanism = 'laplace' | 'gaussian' | 'analytic';

export interface ReleaseBase {
  /** Label in the table, the ledger and the report. */
  name: string;
  eps: number;
  delta: number;
  neighbors: 'bounded' | 'unbounded';
  /** 1-based source line, for messages. */
  line: number;
}

export type ReleaseSpec =
  | (ReleaseBase & { stat: 'count'; column?: string; by?: string; mechanism: NoiseMechanism })
  | (ReleaseBase & { stat: 'mean' | 'variance' | 'sd'; column: string; by?: string; mechanism: NoiseMechanism; n?: number })
  | (ReleaseBase & { stat: 'cov'; columns: [string, string]; mechanism: NoiseMechanism; n?: number })
  | (ReleaseBase & { stat: 'quantile'; column: string; probs: number[] })
  | (ReleaseBase & { stat: 'histogram'; column: string; bins?: number; edges?: number[]; normalize: boolean; mechanism: NoiseMechanism })
  | (ReleaseBase & { stat: 'table'; columns: string[]; mechanism: NoiseMechanism })
  | (ReleaseBase & {
      stat: 'logistic_regression' | 'svm';
      features: string[];
      label: string;
      positive: string;
      gamma: number;
      perturbation: 'objective' | 'output';
    })
  | (ReleaseBase & { stat: 'linear_regression'; features: string[]; label: string; gamma: number; method: 'kst' | 'adassp' });

export type StatName = ReleaseSpec['stat'];

export interface Analysis {
  file: string;
  title: string;
  data: DataSourceSpec;
  schema: DataSchema;
  /**
   * Total budget of the ledger (recorded when the ledger is created) and the neighbour relation it
   * is a guarantee for (default 'bounded'); releases for the other relation are converted when
   * charged (see {@link releaseCost}).
   */
  budget: { eps: number; delta: number; neighbors: Neighbors };
  ledger: string;
  outDir: string;
  /** Level of the accuracy intervals: (1 - alpha). */
  alpha: number;
  releases: ReleaseSpec[];
}

/** One private result, as printed, written to results.json and drawn in the report. */
export interface ReleaseResult {
  name: string;
  stat: string;
  columns: string[];
  /** The release's own guarantee (what it CLAIMS): (eps, delta)-DP for `neighbors`. */
  eps: number;
  delta: number;
  neighbors: 'bounded' | 'unbounded';
  /**
   * What the ledger was CHARGED, in its relation: equal to the claim when the relations agree,
   * (2 eps, (1 + e^eps) delta) for an add/remove-one release on a replace-one ledger.
   */
  charged: { eps: number; delta: number; neighbors: 'bounded' | 'unbounded' };
  mechanism: string;
  /** Sensitivity the noise was calibrated to (per part where a release has several parts). */
  sensitivity: number | number[] | null;
  /** Noise scale actually applied (Laplace b or Gaussian sigma). */
  scale: number | number[] | null;
  /** Confidence level of the intervals, 1 - alpha. */
  level: number;
  /** A scalar result. */
  value?: number;
  interval?: [number, number];
  /** A vector result: labels, values, per-element intervals (and histogram edges). */
  labels?: string[];
  values?: number[];
  intervals?: ([number, number] | null)[];
  edges?: number[];
  notes: string[];
  /** True when part of the input (bounds, levels) came from the data: NOT a private result. */
  nonPrivate?: boolean;
  /** True when read back from the results store (`dpkit run --reuse`): released earlier, not charged again. */
  reused?: boolean;
}

export interface ExecuteOptions {
  rng: Rng;
  accountant: PrivacyAccountant;
  alpha: number;
  /** Called before each release (index, total, name). */
  onRelease?: (i: number, total: number, name: string) => void;
}
