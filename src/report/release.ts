/**
 * The shape of one private release as the report and its CSV read it (the CLI's `ReleaseResult`
 * fits it; a browser app builds the same objects), and the derived quantities shown beside it.
 */
export interface ReportRelease {
  name: string;
  stat: string;
  columns: readonly string[];
  /** The release's own guarantee: (eps, delta)-DP for `neighbors`. */
  eps: number;
  delta: number;
  neighbors: 'bounded' | 'unbounded';
  /** What the ledger was charged, in its relation. */
  charged: { eps: number; delta: number; neighbors: 'bounded' | 'unbounded' };
  mechanism: string;
  sensitivity: number | readonly number[] | null;
  scale: number | readonly number[] | null;
  /** Confidence level of the intervals, 1 - alpha. */
  level: number;
  value?: number;
  interval?: readonly [number, number];
  labels?: readonly string[];
  values?: readonly number[];
  intervals?: readonly (readonly [number, number] | null)[] | null;
  edges?: readonly number[];
  notes: readonly string[];
  nonPrivate?: boolean;
  /** An assumption the guarantee rests on beyond its relation (e.g. a count treated as public), stated with it. */
  assumption?: string;
}

/**
 * The relative error of a scalar release, estimated from the released value: the noise
 * half-width w (half the interval) divided by |released value|. It is an estimate because the
 * true value is not known; null without an interval or for a released value of 0.
 */
export function relativeErrorEstimate(r: Pick<ReportRelease, 'value' | 'interval'>): number | null {
  if (r.value === undefined || !r.interval || !Number.isFinite(r.value) || r.value === 0) return null;
  const w = (r.interval[1] - r.interval[0]) / 2;
  return Number.isFinite(w) ? w / Math.abs(r.value) : null;
}

/** True when the release is a fitted model (coefficients, each on its own scale). */
export function isModel(r: Pick<ReportRelease, 'stat'>): boolean {
  return r.stat === 'linear_regression' || r.stat === 'logistic_regression' || r.stat === 'svm';
}

/** The regularisation strength of a model release (its `gamma` field, or "gamma <x>" in its notes), or null. */
export function modelGamma(r: Pick<ReportRelease, 'stat' | 'notes'> & { gamma?: unknown }): number | null {
  if (!isModel(r)) return null;
  if (typeof r.gamma === 'number') return r.gamma;
  for (const n of r.notes) {
    const m = /\bgamma[ =]+([0-9.]+(?:e[-+]?\d+)?)/i.exec(n);
    if (m) return Number(m[1]);
  }
  return null;
}
