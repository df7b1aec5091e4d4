/**
 * Low-level noise adders shared by the mechanisms, the statistics and the models. They do no budget
 * accounting and no validation of privacy parameters: the caller computes the scale from its
 * sensitivity and epsilon (e.g. {@link laplaceScale}) and charges the accountant (runRelease).
 *
 * Semantics of a {@link NoiseSpec}:
 * - `scale` a number: every element gets that scale, and `sensitivity` (a number) is the sensitivity
 *   of the WHOLE vector (l1 for Laplace, l2 for Gaussian) that the scale was calibrated to.
 * - `scale` an array: element i is its own mechanism with scale[i] calibrated to sensitivity[i]
 *   (a number sensitivity applies to each element).
 *
 * Modes (`NoiseMode` of src/release.ts):
 * - 'safe' (default): lattice release (src/random/lattice.ts): rounding to a grid of spacing about
 *   scale/2^40, sensitivity inflated by the rounding (l1: + d 2^k, l2: + sqrt(d) 2^k), exact discrete
 *   Laplace / discrete Gaussian noise on the grid. The scale actually used is reported by
 *   {@link effectiveNoiseScales} (>= the nominal scale, larger by a relative ~d 2^-40 / eps).
 * - 'exact': integer-valued inputs (checked) plus exact discrete Laplace (scale b) / discrete
 *   Gaussian (sigma) noise on the integers, no rounding. The discrete Laplace gives the same eps as
 *   the continuous one; the discrete Gaussian gives the same zCDP rho = D^2/(2 sigma^2) (CKS 2020,
 *   Thm 14) but its (eps, delta) profile differs slightly for small sigma, so callers needing
 *   (eps, delta) should calibrate sigma through zCDP ({@link gaussianSigmaZCDP} in gaussian.ts).
 * - 'float': fast vectorised inverse-CDF / Box-Muller noise in doubles. For simulations only: the
 *   output leaks through its floating-point pattern (Mironov 2012). Never the default.
 */
import { InvalidArgumentError } from '../errors.js';
import type { NoiseMode } from '../release.js';
import { fillLaplace, fillNormal } from '../random/continuous.js';
import {
  addGridNoise,
  addIntegerNoise,
  checkGridRange,
  checkIntegers,
  DEFAULT_GRID_BITS,
  exactGaussianSampler,
  exactLaplaceSampler,
  gridSampler,
  type GridPlan,
  planGaussianGrid,
  planLaplaceGrid,
} from '../random/lattice.js';
import type { Rng } from '../random/rng.js';
import { checkNoiseMode, isSafeScale } from '../validation.js';

export type { NoiseMode } from '../release.js';

export interface NoiseSpec {
  /** Laplace b or Gaussian sigma: one for all elements, or one per element. */
  scale: number | ArrayLike<number>;
  /**
   * The sensitivity the scale was calibrated to ('safe' mode inflates the scale for the grid
   * rounding relative to it): with a scalar scale, the l1 (Laplace) / l2 (Gaussian) sensitivity of
   * the whole vector; with per-element scales, per element (a number applies to each element).
   */
  sensitivity: number | ArrayLike<number>;
  /** Grid resolution of 'safe' mode: spacing 2^(floor(log2 scale) - gridBits). Default 40. */
  gridBits?: number;
}

/** The noise family of an adder. */
export type NoiseKind = 'laplace' | 'gaussian';
type Kind = NoiseKind;

function checkMode(mode: unknown): NoiseMode {
  return checkNoiseMode(mode);
}

function positiveAt(x: number | ArrayLike<number>, i: number, name: string): number {
  const v = typeof x === 'number' ? x : x[i];
  if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) throw new InvalidArgumentError(typeof x === 'number' ? name : `${name}[${i}]`, 'must be a finite number > 0', v);
  return v;
}

function checkSpec(spec: NoiseSpec, n: number): void {
  if (typeof spec !== 'object' || spec === null) throw new InvalidArgumentError('spec', 'must be an object { scale, sensitivity }', spec);
  for (const [name, x] of [['scale', spec.scale], ['sensitivity', spec.sensitivity]] as const) {
    if (typeof x === 'number') positiveAt(x, 0, name);
    else if (x && typeof (x as ArrayLike<number>).length === 'number') {
      if (x.length !== n) throw new InvalidArgumentError(name, `must be a number or have one entry per value (${n})`, x.length);
      for (let i = 0; i < n; i++) positiveAt(x, i, name);
    } else throw new InvalidArgumentError(name, 'must be a number or an array of numbers', x);
  }
  if (typeof spec.scale === 'number' && typeof spec.sensitivity !== 'number') {
    throw new InvalidArgumentError('sensitivity', 'must be a number (the sensitivity of the whole vector) when scale is a number', spec.sensitivity);
  }
}

function checkValues(values: ArrayLike<number>): void {
  if (!values || typeof values.length !== 'number') throw new InvalidArgumentError('values', 'must be an array of finite numbers', values);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidArgumentError(`values[${i}]`, 'must be a finite number', v);
  }
}

function outFor(values: ArrayLike<number>, out: Float64Array | undefined): Float64Array {
  if (out === undefined) return new Float64Array(values.length);
  if (!(out instanceof Float64Array) || out.length !== values.length) throw new InvalidArgumentError('out', `must be a Float64Array of length ${values.length}`, out);
  return out;
}

/**
 * The noise scales actually applied per element by {@link addLaplaceNoise} / {@link addGaussianNoise}
 * for this spec and mode ('safe' inflates for the grid rounding; 'exact' and 'float' use the nominal scale).
 */
export function effectiveNoiseScales(kind: Kind, spec: NoiseSpec, n: number, mode: NoiseMode = 'safe'): Float64Array {
  return planNoiseSpec(kind, spec, n, mode).effectiveScale;
}

function planFor(kind: Kind, scale: number, sensitivity: number, dims: number, bits = DEFAULT_GRID_BITS): GridPlan {
  // A release plans its grid twice (the values check, then the noise): the last plan is reused when
  // every argument is the same (a plan is a pure function of them and is only read).
  const m = lastGrid;
  if (m.plan !== undefined && kind === m.kind && scale === m.scale && sensitivity === m.sensitivity && dims === m.dims && bits === m.bits) return m.plan;
  const p = kind === 'laplace' ? planLaplaceGrid(scale, sensitivity, dims, bits) : planGaussianGrid(scale, sensitivity, dims, bits);
  m.kind = kind;
  m.scale = scale;
  m.sensitivity = sensitivity;
  m.dims = dims;
  m.bits = bits;
  m.plan = p;
  return p;
}

const lastGrid: { kind: Kind; scale: number; sensitivity: number; dims: number; bits: number; plan: GridPlan | undefined } = { kind: 'laplace', scale: NaN, sensitivity: NaN, dims: NaN, bits: NaN, plan: undefined };

/**
 * The noise of one release, planned once from public inputs before any data are read: family, mode,
 * nominal scale and the sensitivity it was calibrated to, and, in 'safe' mode, the grid (exponent k,
 * spacing 2^k, and the integer grid scale) with the scale actually applied. Every caller that needs
 * the grid (the mechanisms' noise half-widths, the statistics' range checks, the CLI) reads it here
 * instead of planning it again.
 */
export interface NoiseLayout {
  family: NoiseKind;
  mode: NoiseMode;
  /** Nominal scale: Laplace b or Gaussian sigma. */
  scale: number;
  /** The sensitivity of the whole vector the scale was calibrated to (l1 Laplace, l2 Gaussian). */
  sensitivity: number;
  /** Number of coordinates sharing this scale (the grid inflation grows with it). */
  dims: number;
  /** 'safe' mode: grid exponent k (values rounded to multiples of 2^k); undefined otherwise. */
  gridExponent: number | undefined;
  /** The scale actually applied, in the caller's units (>= scale in 'safe' mode; see lattice.ts). */
  effectiveScale: number;
  /**
   * Allowance a noise half-width adds for the lattice: two grid steps in 'safe' mode (rounding
   * <= 2^(k-1) plus the discreteness of the noise), 1 in 'exact' mode (integer lattice), 0 for 'float'.
   */
  slack: number;
}

/**
 * Plans the noise of a release: for 'safe' mode the grid of {@link planLaplaceGrid} /
 * {@link planGaussianGrid} (the scale must lie in the safe range [2^-900, 2^900]); 'exact' and
 * 'float' use the nominal scale. Validates scale, sensitivity, dims and mode (typed errors).
 */
export function planNoiseLayout(family: NoiseKind, scale: number, sensitivity: number, dims: number, mode: NoiseMode = 'safe', gridBits = DEFAULT_GRID_BITS): NoiseLayout {
  checkMode(mode);
  positiveAt(scale, 0, 'scale');
  positiveAt(sensitivity, 0, 'sensitivity');
  if (!Number.isInteger(dims) || dims < 1) throw new InvalidArgumentError('dims', 'must be an integer >= 1', dims);
  if (mode !== 'safe') return { family, mode, scale, sensitivity, dims, gridExponent: undefined, effectiveScale: scale, slack: mode === 'exact' ? 1 : 0 };
  const g = planFor(family, scale, sensitivity, dims, gridBits);
  return { family, mode, scale, sensitivity, dims, gridExponent: g.k, effectiveScale: g.effectiveScale, slack: 2 * Math.pow(2, g.k) };
}

/**
 * The per-element noise plan of a {@link NoiseSpec} ({@link planNoiseLayout} once for a scalar scale
 * over the whole vector, once per element for per-element scales): the scales actually applied and
 * the half-width slack of each element.
 */
export function planNoiseSpec(kind: Kind, spec: NoiseSpec, n: number, mode: NoiseMode = 'safe'): { effectiveScale: Float64Array; slack: Float64Array } {
  checkMode(mode);
  checkSpec(spec, n);
  const effectiveScale = new Float64Array(n);
  const slack = new Float64Array(n);
  if (typeof spec.scale === 'number') {
    const p = planNoiseLayout(kind, spec.scale, spec.sensitivity as number, n, mode, spec.gridBits);
    effectiveScale.fill(p.effectiveScale);
    slack.fill(p.slack);
    return { effectiveScale, slack };
  }
  for (let i = 0; i < n; i++) {
    const p = planNoiseLayout(kind, positiveAt(spec.scale, i, 'scale'), positiveAt(spec.sensitivity, i, 'sensitivity'), 1, mode, spec.gridBits);
    effectiveScale[i] = p.effectiveScale;
    slack[i] = p.slack;
  }
  return { effectiveScale, slack };
}

/**
 * Every check {@link addLaplaceNoise} / {@link addGaussianNoise} would make, without drawing noise:
 * finite values, a valid spec and mode, integer values in 'exact' mode, values that fit the grid in
 * 'safe' mode. Release functions call it before the budget check so that no error can follow it.
 */
export function checkNoiseInputs(kind: Kind, values: ArrayLike<number>, spec: NoiseSpec, mode: NoiseMode = 'safe'): void {
  checkValues(values);
  checkSpec(spec, values.length);
  checkMode(mode);
  if (mode === 'exact') checkIntegers(values);
  if (mode === 'safe') {
    const n = values.length;
    if (typeof spec.scale === 'number') checkGridRange(values, planFor(kind, spec.scale, spec.sensitivity as number, n, spec.gridBits).k);
    else for (let i = 0; i < n; i++) checkGridRange(values, planFor(kind, spec.scale[i]!, positiveAt(spec.sensitivity, i, 'sensitivity'), 1, spec.gridBits).k, i, i + 1);
  }
}

/**
 * Whether {@link checkNoiseInputs} would pass, in ONE pass over the values for a scalar scale
 * (per-element scales: false, the caller then runs the full checks, which also give the error).
 * 'safe': |x / 2^k| finite (which implies x finite); 'exact': x an integer; 'float': x finite.
 */
export function fitsNoise(kind: Kind, values: ArrayLike<number>, spec: NoiseSpec, mode: NoiseMode): boolean {
  if (!(values instanceof Float64Array) || values.length === 0 || typeof spec !== 'object' || spec === null) return false;
  const { scale, sensitivity } = spec;
  if (typeof scale !== 'number' || typeof sensitivity !== 'number' || !(scale > 0) || !Number.isFinite(scale) || !(sensitivity > 0) || !Number.isFinite(sensitivity)) return false;
  const n = values.length;
  if (mode === 'safe') {
    if (!isSafeScale(scale)) return false;
    const inv = Math.pow(2, -planFor(kind, scale, sensitivity, n, spec.gridBits).k);
    let acc = 0;
    // x * inv is NaN or +-Infinity for a value that does not fit; 0 * (NaN or Infinity) is NaN.
    for (let i = 0; i < n; i++) acc += 0 * (values[i]! * inv);
    return acc === 0;
  }
  if (mode === 'float') {
    let acc = 0;
    for (let i = 0; i < n; i++) acc += 0 * values[i]!;
    return acc === 0;
  }
  if (mode === 'exact') {
    for (let i = 0; i < n; i++) if (!Number.isInteger(values[i]!)) return false;
    return true;
  }
  return false;
}

/**
 * {@link addLaplaceNoise} / {@link addGaussianNoise} without re-checking the inputs: for callers that
 * ran {@link checkNoiseInputs} (or {@link fitsNoise}) on the same values, spec and mode before the
 * budget check, so that the values are read once for checking and once for the noise.
 */
export function addCheckedNoise(kind: Kind, values: ArrayLike<number>, spec: NoiseSpec, rng: Rng, mode: NoiseMode): Float64Array {
  return addNoise(kind, values, spec, rng, mode, undefined, true);
}

function addNoise(kind: Kind, values: ArrayLike<number>, spec: NoiseSpec, rng: Rng, mode: NoiseMode, out: Float64Array | undefined, checked = false): Float64Array {
  if (!checked) {
    checkValues(values);
    checkSpec(spec, values.length);
    checkMode(mode);
  }
  const n = values.length;
  const res = outFor(values, out);
  if (mode === 'float') {
    const noise = (res as unknown) === values ? new Float64Array(n) : res;
    if (kind === 'laplace') fillLaplace(rng, noise, 1);
    else fillNormal(rng, noise, 1);
    const sc = spec.scale;
    if (typeof sc === 'number') for (let i = 0; i < n; i++) res[i] = values[i]! + sc * noise[i]!;
    else for (let i = 0; i < n; i++) res[i] = values[i]! + sc[i]! * noise[i]!;
    return res;
  }
  if (mode === 'exact') {
    if (!checked) checkIntegers(values);
    const make = kind === 'laplace' ? exactLaplaceSampler : exactGaussianSampler;
    if (typeof spec.scale === 'number') {
      addIntegerNoise(values, res, make(spec.scale), rng);
      return res;
    }
    let last = NaN;
    let sampler = make(1);
    for (let i = 0; i < n; i++) {
      const s = spec.scale[i]!;
      if (s !== last) {
        sampler = make(s);
        last = s;
      }
      addIntegerNoise(values, res, sampler, rng, i, i + 1);
    }
    return res;
  }
  // 'safe'
  if (typeof spec.scale === 'number') {
    const p = planFor(kind, spec.scale, spec.sensitivity as number, n, spec.gridBits);
    if (!checked) checkGridRange(values, p.k);
    addGridNoise(values, res, p.k, gridSampler(kind, p.gridScale), rng);
    return res;
  }
  const plans = new Array<{ k: number; gridScale: number }>(n);
  for (let i = 0; i < n; i++) {
    plans[i] = planFor(kind, spec.scale[i]!, positiveAt(spec.sensitivity, i, 'sensitivity'), 1, spec.gridBits);
    checkGridRange(values, plans[i]!.k, i, i + 1);
  }
  let lastScale = NaN;
  let sampler = gridSampler(kind, 1);
  for (let i = 0; i < n; i++) {
    const p = plans[i]!;
    if (p.gridScale !== lastScale) {
      sampler = gridSampler(kind, p.gridScale);
      lastScale = p.gridScale;
    }
    addGridNoise(values, res, p.k, sampler, rng, i, i + 1);
  }
  return res;
}

/**
 * values + Laplace noise (see the module comment for `spec` and `mode`). Returns a new Float64Array
 * (or fills `out`). With the caller's scale b = D/eps the result is eps-DP for l1 sensitivity D in
 * 'safe' and 'exact' modes (Dwork, McSherry, Nissim & Smith 2006; lattice: lattice.ts).
 */
export function addLaplaceNoise(values: ArrayLike<number>, spec: NoiseSpec, rng: Rng, mode: NoiseMode = 'safe', out?: Float64Array): Float64Array {
  return addNoise('laplace', values, spec, rng, mode, out);
}

/**
 * values + Gaussian noise with standard deviation `spec.scale` (see the module comment). In 'safe'
 * mode the released vector has the privacy of the continuous Gaussian mechanism with that sigma for
 * l2 sensitivity D, up to the lattice argument documented in lattice.ts.
 */
export function addGaussianNoise(values: ArrayLike<number>, spec: NoiseSpec, rng: Rng, mode: NoiseMode = 'safe', out?: Float64Array): Float64Array {
  return addNoise('gaussian', values, spec, rng, mode, out);
}
