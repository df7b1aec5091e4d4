/**
 * Private models in `dpkit run`: the rows are streamed from DuckDB into one column-major
 * Float64Array (clamped to the schema's public bounds, missing values handled by each column's
 * policy) and fitted by the models of src/models (Chaudhuri-Monteleoni-Sarwate ERM for logistic
 * regression and SVM, Kifer-Smith-Thakurta objective perturbation for linear regression).
 * Budget: the plan runner checks and charges the cost; the model itself is given no accountant.
 * What is charged is the MODEL's guarantee ({@link modelGuarantee}), never a YAML default: KST linear
 * regression is (eps, delta)-DP for add/remove-one ('unbounded') neighbours, so a replace-one ledger
 * is charged (2 eps, (1 + e^eps) delta); CMS logistic regression and SVM are eps-DP for replace-one
 * ('bounded') neighbours and cannot be charged to an add/remove-one ledger.
 */
import type { Rng } from '../random/rng.js';
import type { Guarantee } from '../release.js';
import type { ModelRelease } from '../models/model-release.js';
import { LogisticRegressionDP } from '../models/logistic.js';
import { SvmDP } from '../models/svm.js';
import { LinearRegressionDP } from '../models/linear.js';
import { CmsClassifier } from '../models/erm/classifier.js';
import { columnMajor } from '../models/matrix.js';
import { InvalidArgumentError } from '../errors.js';
import type { DataEngine, NumericRequest } from './data.js';
import type { DataSchema, NumericColumn, ReleaseResult, ReleaseSpec } from './spec.js';
import { countOf, publicCountAssumption } from '../report/public-count-assumption.js';

type ModelSpec = Extract<ReleaseSpec, { stat: 'logistic_regression' | 'svm' | 'linear_regression' }>;

/** The parameters a model's guarantee depends on (all public, known before any data are read). */
export type ModelParams =
  | { stat: 'linear_regression'; eps: number; delta: number; gamma: number; method?: 'kst' | 'adassp' }
  | { stat: 'logistic_regression' | 'svm'; eps: number; gamma: number; perturbation: 'objective' | 'output' };

/** The (unfitted) model of a release, constructed from its public options only (to fit it). */
function makeModel(r: ModelParams): LinearRegressionDP | LogisticRegressionDP | SvmDP {
  if (r.stat === 'linear_regression') return r.method === 'adassp' ? new LinearRegressionDP({ method: 'adassp', eps: r.eps, delta: r.delta }) : new LinearRegressionDP({ eps: r.eps, delta: r.delta, gamma: r.gamma });
  const opts = { eps: r.eps, gamma: r.gamma, perturbation: r.perturbation };
  return r.stat === 'svm' ? new SvmDP(opts) : new LogisticRegressionDP(opts);
}

/**
 * The guarantee the model of a release states, a function of its public options only (no model is
 * built): KST linear regression (eps, delta)-DP for add/remove-one neighbours
 * ({@link LinearRegressionDP.guaranteeOf}); CMS logistic regression and SVM eps-DP for replace-one
 * neighbours ({@link CmsClassifier.guaranteeOf}). The same functions give the fitted models'
 * `guarantee`, so the plan check and the charge use what the model states.
 */
export function modelGuarantee(r: ModelParams): Guarantee {
  return r.stat === 'linear_regression' ? LinearRegressionDP.guaranteeOf(r) : CmsClassifier.guaranteeOf(r);
}

/** Whether a model kind is available in this build. */
export function modelsAvailable(kind: ModelSpec['stat']): boolean {
  return kind === 'logistic_regression' || kind === 'svm' || kind === 'linear_regression';
}

/**
 * What a fitted model's calibration used, from the privacy record it exposes (`details`):
 * `sensitivity` and `sensitivityOf` (what it bounds). Output perturbation (CMS): the l2 sensitivity
 * (2W + 2 tau)/gamma of the minimiser. Objective perturbation has no output sensitivity (its proof
 * bounds the density ratio of the noise that makes theta optimal): KST states zeta = 2 p^(3/2), the
 * l2 bound on one row's loss gradient that b is calibrated to; CMS states 2, the bound on the
 * difference of two rows' loss gradients. AdaSSP: the l2 sensitivities of its three releases. The
 * notes repeat it for the report, with the model's unestablished assumption (if any).
 */
function calibration(d: ModelRelease | undefined): { sensitivity: number | number[] | null; sensitivityOf: string; notes: string[] } {
  if (d === undefined) return { sensitivity: null, sensitivityOf: 'the model exposes no privacy record', notes: [] };
  const s = d.sensitivity as number | number[];
  const shown = Array.isArray(s) ? s.map((x) => +x.toPrecision(6)).join(', ') : String(+s.toPrecision(6));
  return { sensitivity: Array.isArray(s) ? [...s] : s, sensitivityOf: d.sensitivityOf, notes: [`calibration: sensitivity ${shown} (${d.sensitivityOf})`, ...(d.assumption !== undefined ? [d.assumption] : [])] };
}

function pack(cols: Float64Array[]): { data: Float64Array; n: number } {
  const n = cols[0]?.length ?? 0;
  const data = new Float64Array(n * cols.length);
  cols.forEach((c, j) => data.set(c, j * n));
  return { data, n };
}

/** Fit a model release; returns the result fields (coefficients with the intercept first). */
export async function fitModel(
  r: ModelSpec,
  reqs: (NumericRequest & { col: NumericColumn })[],
  schema: DataSchema,
  engine: DataEngine,
  rng: Rng,
  _alpha: number,
): Promise<Omit<ReleaseResult, 'name' | 'stat' | 'columns' | 'eps' | 'delta' | 'neighbors' | 'level' | 'notes' | 'charged'> & { notes: string[]; guarantee: Guarantee; sensitivityOf: string }> {
  const lower = reqs.map((q) => q.lower);
  const upper = reqs.map((q) => q.upper);
  const labels = ['(intercept)', ...r.features];
  if (r.stat === 'linear_regression') {
    const yc = schema.columns.get(r.label) as NumericColumn;
    const cols = await engine.numericColumns([...reqs, { column: r.label, lower: yc.lower, upper: yc.upper, missing: yc.missing }]);
    const { data, n } = pack(cols.slice(0, reqs.length));
    // Total for every n, 0 and 1 included (n is private under add/remove-one; KST's and AdaSSP's
    // calibration does not use it): with no complete row the fit releases the perturbed regularised
    // minimiser (KST) or the ridge solution of noisy zero statistics (AdaSSP); src/models/linear.ts.
    const m = makeModel(r) as LinearRegressionDP;
    m.fit(n === 0 ? [] : columnMajor(data, n, reqs.length), cols[reqs.length]!, { lower: [...lower, yc.lower], upper: [...upper, yc.upper], addBias: true, rng, accountant: null });
    const cal = calibration(m.details);
    return {
      mechanism: r.method === 'adassp' ? 'adassp' : r.delta === 0 ? 'kst-objective-perturbation' : 'kst-objective-perturbation-gaussian',
      sensitivity: cal.sensitivity,
      sensitivityOf: cal.sensitivityOf,
      scale: null,
      labels,
      values: m.coeff!,
      intervals: m.coeff!.map(() => null),
      notes: [
        r.method === 'adassp'
          ? 'AdaSSP (Wang 2018): lattice-Gaussian X^T X, X^T y and lambda_min under a zCDP split, private ridge; (eps, delta)-DP for add/remove-one neighbours; coefficients in the units of the inputs; no data-independent interval'
          : `Kifer, Smith & Thakurta (2012) objective perturbation, gamma ${r.gamma}; (eps, delta)-DP for add/remove-one neighbours; coefficients in the units of the inputs; no data-independent interval`,
        ...cal.notes,
      ],
      guarantee: m.guarantee,
    };
  }
  const lc = schema.columns.get(r.label)!;
  const { x, y } = await engine.rowsWithLabel(reqs, { column: r.label, positive: r.positive, missing: lc.missing });
  const { data, n } = pack(x);
  // Objective perturbation treats n as public (its assumption, below) and needs n >= 1 (Delta and
  // the objective scale with 1/n): no complete row is a charged failure that says so.
  if (n < 1 && r.perturbation === 'objective') throw new InvalidArgumentError(r.name, 'needs at least 1 complete row (objective perturbation)');
  const model = makeModel(r) as LogisticRegressionDP | SvmDP;
  if (n === 0) {
    // Output perturbation is total: its sensitivity (2W + 2 tau)/gamma (W = 1) holds for the summed
    // objective F = sum_i l_i + gamma R whatever n is, 0 included, where F = gamma R. That F is fitted
    // as one row of weight 0 (weighted ERM, weights in [0, W = 1]: F = 0 l + gamma R, the same
    // function, tolerance tau on its gradient and the same sensitivity), so the release is theta* + b
    // with theta* the minimiser of gamma R: the mechanism and noise of the unweighted release.
    model.fit([lower.slice()], [1], { lower, upper, addBias: true, weights: [0], weightsUpperBound: 1, rng, accountant: null });
  } else {
    model.fit(columnMajor(data, n, reqs.length), y, { lower, upper, addBias: true, rng, accountant: null }); // charged by the engine, never by a default accountant
  }
  const info = model.fitInfo;
  const cal = calibration(model.details);
  // Objective perturbation (CMS Theorem 9) is proven for neighbours with the same number n of rows (its
  // objective and Delta scale with 1/n): with dropped missing values that n is treated as public.
  // Output perturbation is not: its sensitivity (2W + 2 tau)/gamma holds for the summed objective
  // whatever n is, so a replacement that adds or removes a complete row is covered (cms.ts).
  const assumption =
    r.perturbation === 'objective'
      ? publicCountAssumption('bounded', [...reqs.map((q) => q.col), lc], countOf.completeRows([...r.features, r.label]))
      : undefined;
  const notes = [
    `Chaudhuri, Monteleoni & Sarwate (2011) ${r.perturbation} perturbation, gamma ${r.gamma}, label 1 = "${r.positive}"; eps-DP for replace-one neighbours; the noise norm is Gamma-distributed in a uniform direction, so no per-coefficient interval is shown`,
  ];
  return {
    ...(assumption !== undefined ? { assumption } : {}),
    // (no complete row: the zero-weight fit is labelled as the unweighted release it equals)
    mechanism: (info?.mechanism ?? (r.perturbation === 'objective' ? 'cms-objective-perturbation' : 'cms-output-perturbation')).replace('cms-weighted-', 'cms-'),
    sensitivity: cal.sensitivity,
    sensitivityOf: cal.sensitivityOf,
    scale: null,
    labels,
    values: model.coeff!,
    intervals: model.coeff!.map(() => null),
    guarantee: model.guarantee,
    notes: [...(assumption === undefined ? [] : [assumption]), ...notes, ...cal.notes],
  };
}
