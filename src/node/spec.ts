/**
 * The types of a `dpkit run` plan and its results, in their own module so that the parser
 * (analysis.ts), the executor (execute.ts), the models (models.ts), the CLI and the report share them
 * without importing each other: the schema (public bounds, levels, missing-value policies), the
 * release specs of an analysis file, and the released results.
 */
import type { Neighbors } from '../accounting/accountant.js';
import type { Accountant } from '../accounting/accountant-interface.js';
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
  /**
   * lower/upper are (or, while `pending`, will be) the output of the plan's private 'bounds' release
   * `release` at `eps` (`dpkit describe --auto-bounds`); pending: a placeholder (the method's widest range).
   */
  privateBounds?: { eps: number; method: 'histogram' | 'quantiles'; release: string; pending: boolean };
}

export interface CategoricalColumn {
  name: string;
  type: 'categorical';
  levels: string[];
  missing: MissingPolicy;
  fromData?: boolean;
}

/**
 * An identifier column (`type: id`): a privacy unit (e.g. the student `s`) or a group key whose values
 * are private (e.g. the lecturer `d`); no public bounds or levels. Rows with a NULL id are dropped.
 */
export interface IdColumn {
  name: string;
  type: 'id';
  missing: 'drop';
  fromData?: boolean;
}

export type ColumnSchema = NumericColumn | CategoricalColumn | IdColumn;

export interface DataSchema {
  file: string;
  columns: Map<string, ColumnSchema>;
}

export type NoiseMechanism = 'laplace' | 'gaussian' | 'analytic';

/**
 * Contribution bounding of a release under a privacy unit (analysis keys `privacy_unit`,
 * `max_partitions`, `max_rows`, `per_unit_clamp`, `select_eps`/`select_delta`/`select_method`,
 * `bounds: auto`/`bounds_eps`, `distinct_units`). Present exactly when the analysis declares a unit.
 */
export interface UnitBounds {
  /** The unit column (the analysis's `privacy_unit`). */
  unit: string;
  /** L0: the most groups per unit (1 for an ungrouped release). */
  maxPartitions: number;
  /** L-inf: the most rows per unit and group. */
  maxRows: number;
  /** sum/mean: clamp each unit's per-group total to [lower, upper] instead of each row. */
  perUnitClamp?: { lower: number; upper: number };
  /** Private group keys (`by` without levels): partition selection with this share of the budget. */
  selectKeys?: { eps: number; delta: number; method: 'optimal' | 'laplace' | 'gaussian' };
  /**
   * Private clipping bounds (`bounds: auto`) with this share of eps: ApproxBounds' log-scale histogram
   * (default), or `method: 'quantiles'` (private 1st/99th percentiles over the public `range`).
   */
  autoBounds?: { eps: number; method?: 'histogram' | 'quantiles'; range?: [number, number] };
  /** count: the number of distinct units (each unit counted once) instead of rows. */
  distinctUnits?: boolean;
  /** The eps of the noisy aggregates (the release's eps minus the selection and bounds shares). */
  aggregateEps: number;
}

export interface ReleaseBase {
  /** Label in the table, the ledger and the report. */
  name: string;
  eps: number;
  delta: number;
  neighbors: 'bounded' | 'unbounded';
  /** 1-based source line, for messages. */
  line: number;
  /** Contribution bounds when the analysis declares a privacy unit (then neighbours add/remove one unit). */
  unitBounds?: UnitBounds;
}

export type ReleaseSpec =
  | (ReleaseBase & { stat: 'count'; column?: string; by?: string; mechanism: NoiseMechanism })
  | (ReleaseBase & { stat: 'mean' | 'variance' | 'sd'; column: string; by?: string; mechanism: NoiseMechanism; n?: number })
  | (ReleaseBase & { stat: 'cov'; columns: [string, string]; mechanism: NoiseMechanism; n?: number })
  | (ReleaseBase & { stat: 'quantile'; column: string; probs: number[]; by?: string; bins?: number })
  | (ReleaseBase & { stat: 'histogram'; column: string; by?: string; bins?: number; edges?: number[]; normalize: boolean; mechanism: NoiseMechanism })
  /**
   * `selectKeys` (`dpkit describe`, a categorical column without public levels): one column whose
   * keys are private; only keys that pass partition selection (this share of eps and ALL of the
   * release's delta) are released, with Laplace counts from the rest of eps (private-keys-table.ts).
   */
  | (ReleaseBase & { stat: 'table'; columns: string[]; mechanism: NoiseMechanism; selectKeys?: { eps: number; delta: number; method: 'optimal' | 'laplace' | 'gaussian' } })
  /**
   * Private clipping bounds of a numeric column (`dpkit describe` for a column the schema gives no
   * bounds): their result replaces the column's placeholder bounds for the later releases of the plan.
   */
  | (ReleaseBase & { stat: 'bounds'; column: string; method: 'histogram' | 'quantiles'; range?: [number, number] })
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
   * charged (see {@link releaseCost}). `accounting` (analysis key `budget.accounting`): how the
   * ledger adds up plans, 'basic' or 'zcdp-filter' (absent: the existing ledger's, 'basic' for a new one).
   */
  budget: { eps: number; delta: number; neighbors: Neighbors; accounting?: 'basic' | 'zcdp-filter' };
  /** The privacy unit column (`privacy_unit`), or undefined: one row. The ledger keeps one unit. */
  privacyUnit?: string;
  ledger: string;
  outDir: string;
  /** Level of the accuracy intervals: (1 - alpha). */
  alpha: number;
  releases: ReleaseSpec[];
  /** Warnings about the file itself (deprecated keys), located `file:line:col: key ...`; printed on stderr. */
  warnings?: string[];
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
  /** The privacy unit the guarantee protects (absent: one row). */
  privacyUnit?: string;
  /** The guarantee in words, e.g. "(1, 0.000001)-DP per s (add/remove one s)". */
  guaranteeText?: string;
  /**
   * An assumption the guarantee rests on beyond its relation, stated with it in results.json,
   * results.csv and the report: a replace-one release calibrated with the number n of non-missing
   * values (or complete rows) of columns that drop missing values treats that n as public (the
   * bounded convention), though a replace-one neighbour can change it. Absent when there is none.
   */
  assumption?: string;
  /**
   * What the ledger was CHARGED, in its relation: equal to the claim when the relations agree,
   * (2 eps, (1 + e^eps) delta) for an add/remove-one release on a replace-one ledger. For a plan
   * charged as a whole (PLD composition or a zCDP filter; results.json's `planCost`), this release's
   * share stated as its own converted guarantee; the ledger was charged the plan's cost once.
   */
  charged: { eps: number; delta: number; neighbors: 'bounded' | 'unbounded' };
  mechanism: string;
  /** Sensitivity the noise was calibrated to (per part where a release has several parts). */
  sensitivity: number | number[] | null;
  /**
   * Models: what `sensitivity` bounds, as the model states it (e.g. the l2 sensitivity of the
   * output-perturbation minimiser; for objective perturbation, which has no output sensitivity, the
   * gradient bound its noise is calibrated to and why). Absent for other releases.
   */
  sensitivityOf?: string;
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
  /** The ledger's accountant, or the plan's own when the plan was charged as a whole (prepaid-plan.ts). */
  accountant: Accountant & { readonly neighbors: Neighbors };
  alpha: number;
  /** Called before each release (index, total, name). */
  onRelease?: (i: number, total: number, name: string) => void;
}
