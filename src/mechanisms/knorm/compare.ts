/**
 * Comparing K-norm mechanisms (Awan & Slavkovic 2021, Section 3): volumes of lp balls
 * (Proposition 3.21, Wang 2005), the entropy of a K-norm mechanism (Proposition 3.14), and a
 * comparison of candidate norms for a sensitivity space by the containment order (Theorems 3.6,
 * 3.17) and the volume order (Theorem 3.15, Corollary 3.12), recommending the convex hull of the
 * sensitivity space when it is a valid norm ball (Theorem 3.19, Lemma 3.18).
 */
import { InvalidArgumentError } from '../../errors.js';
import { logGamma } from '../../math/special.js';
import { resolveRng, type Rng } from '../../random/rng.js';
import { checkInteger, checkPositive } from '../../validation.js';
import { normL1, normL2, normLinf } from './ball.js';
import { Polytope, type VolumeEstimate } from './polytope.js';

/**
 * Volume of the lp ball of radius r in R^m: (2 r Gamma(1 + 1/p))^m / Gamma(1 + m/p)
 * (Proposition 3.21; p = Infinity gives the cube (2r)^m). Computed in log space.
 */
export function lpBallVolume(p: number, m: number, r = 1): number {
  return Math.exp(lpBallLogVolume(p, m, r));
}

/** The natural log of {@link lpBallVolume}. */
export function lpBallLogVolume(p: number, m: number, r = 1): number {
  if (typeof p !== 'number' || !(p >= 1)) throw new InvalidArgumentError('p', 'must be a number in [1, Infinity]', p);
  checkInteger(m, 'm', 1);
  checkPositive(r, 'r');
  if (p === Infinity) return m * Math.log(2 * r);
  return m * (Math.log(2 * r) + logGamma(1 + 1 / p)) - logGamma(1 + m / p);
}

/**
 * Volume of a polytope: exact in 2 and 3 dimensions, else hit-or-miss Monte Carlo in its bounding box
 * with a 95% Wilson interval (`samples` draws with `rng`).
 */
export function polytopeVolume(polytope: Polytope, opts: { rng?: Rng; samples?: number } = {}): VolumeEstimate {
  if (!(polytope instanceof Polytope)) throw new InvalidArgumentError('polytope', 'must be a Polytope', polytope);
  return polytope.volumeEstimate({ rng: polytope.volume === undefined ? resolveRng(opts.rng) : opts.rng, ...(opts.samples !== undefined ? { samples: opts.samples } : {}) });
}

/**
 * Entropy (nats) of the K-norm mechanism's noise, density proportional to exp(-eps |v|_K / Delta)
 * in R^m (Proposition 3.14): m + m ln(Delta/eps) + ln(m!) + ln vol(K).
 * Derivation: the density is exp(-a|v|_K) a^m / (m! vol(K)) with a = eps/Delta, and E|V|_K = m/a.
 */
export function kNormEntropy(m: number, eps: number, Delta: number, volumeOfK: number): number {
  checkInteger(m, 'm', 1);
  checkPositive(eps, 'eps');
  checkPositive(Delta, 'Delta');
  checkPositive(volumeOfK, 'volumeOfK');
  return m + m * Math.log(Delta / eps) + logGamma(m + 1) + Math.log(volumeOfK);
}

/**
 * Samples of the sensitivity space S_T = {T(X) - T(X') : X, X' neighbours} (Definition 2.5): `samples`
 * datasets X of `n` records drawn from `domain` (a record sampler, or a box [lo, hi] of numeric
 * records), each paired with X' = X with its first record replaced by a fresh draw. With a box, the
 * box's corners are also paired with each other first (extremes are often attained there) when the
 * record has at most 8 coordinates.
 *
 * An AID FOR EXPLORATION ONLY: sampled differences under-estimate the sensitivity (the supremum),
 * so a released mechanism must use an exact bound derived analytically, never these samples.
 */
export function sensitivitySpace<R = number[]>(
  T: (data: R[]) => ArrayLike<number>,
  domain: ((rng: Rng) => R) | [lo: number[], hi: number[]],
  opts: { samples?: number; n?: number; rng?: Rng } = {},
): number[][] {
  if (typeof T !== 'function') throw new InvalidArgumentError('T', 'must be a function from a dataset (array of records) to a vector', T);
  const samples = opts.samples ?? 10_000;
  checkInteger(samples, 'samples', 1);
  const n = opts.n ?? 1;
  checkInteger(n, 'n', 1);
  const rng = resolveRng(opts.rng);
  let draw: (rng: Rng) => R;
  const out: number[][] = [];
  const diff = (x: R[], y: R[]) => {
    const a = T(x);
    const b = T(y);
    const d = new Array<number>(a.length);
    for (let i = 0; i < a.length; i++) d[i] = a[i]! - b[i]!;
    out.push(d);
  };
  if (typeof domain === 'function') draw = domain;
  else {
    if (!Array.isArray(domain) || domain.length !== 2 || domain[0].length !== domain[1].length || domain[0].length === 0) {
      throw new InvalidArgumentError('domain', 'must be a record sampler (rng) => record, or a box [lo, hi] of equal-length arrays', domain);
    }
    const [lo, hi] = domain;
    lo.forEach((l, i) => {
      if (!(Number.isFinite(l) && Number.isFinite(hi[i]!) && l <= hi[i]!)) throw new InvalidArgumentError(`domain[${i}]`, 'must satisfy lo <= hi, both finite', `[${l}, ${hi[i]}]`);
    });
    draw = (r) => lo.map((l, i) => l + (hi[i]! - l) * r.nextDouble()) as unknown as R;
    const k = lo.length;
    if (k <= 8) {
      const corners: number[][] = [];
      for (let mask = 0; mask < 1 << k; mask++) corners.push(lo.map((l, i) => ((mask >> i) & 1 ? hi[i]! : l)));
      const rest = Array.from({ length: n - 1 }, () => draw(rng));
      for (const c of corners) for (const d of corners) diff([c as unknown as R, ...rest], [d as unknown as R, ...rest]);
    }
  }
  for (let s = 0; s < samples; s++) {
    const x = Array.from({ length: n }, () => draw(rng));
    const y = x.slice();
    y[0] = draw(rng);
    diff(x, y);
  }
  return out;
}

/** A sensitivity space given by a statistic and a record domain, sampled by {@link sensitivitySpace}. */
export interface SensitivitySpaceSpec {
  T: (data: any[]) => ArrayLike<number>;
  domain: ((rng: Rng) => unknown) | [lo: number[], hi: number[]];
  samples?: number;
  n?: number;
}

function isSpec(x: unknown): x is SensitivitySpaceSpec {
  return typeof x === 'object' && x !== null && typeof (x as SensitivitySpaceSpec).T === 'function';
}

/** A candidate norm: built-in lp balls, the hull of the space, or a custom unit ball. */
export type CandidateNorm =
  | 'l1'
  | 'l2'
  | 'linf'
  | 'hull'
  | {
      name: string;
      /** The gauge |u|_K of the unit ball K. */
      gauge: (u: ArrayLike<number>) => number;
      /** vol(K) of the unit ball. */
      unitVolume: number;
      /** The vertices of K when it is a polytope (enables containment checks against it). */
      vertices?: number[][];
    };

export interface CandidateReport {
  name: string;
  /** Delta_K: the largest gauge over the given points (1 for the hull). */
  sensitivity: number;
  /** vol(Delta_K K). */
  volume: number;
  logVolume: number;
  /** Entropy of the mechanism at eps = 1 (Proposition 3.14); differences between candidates are eps-free. */
  entropyAtEps1: number;
}

export interface KNormComparison {
  dimension: number;
  candidates: CandidateReport[];
  /** containment[i][j]: is Delta_i K_i contained in Delta_j K_j? null when it cannot be decided here. */
  containment: (boolean | null)[][];
  /** Candidate names from the smallest scaled ball to the largest (the volume order). */
  volumeOrder: string[];
  recommendation: string;
  reason: string;
  /** The hull of the given points, when a candidate and a valid norm ball. When the points are samples or a grid it is an INNER approximation of the true hull: never release with it at sensitivity 1. */
  hull?: Polytope;
}

interface Resolved {
  name: string;
  gauge: (u: ArrayLike<number>) => number;
  sensitivity: number;
  logVolume: number;
  /** Vertices of the scaled ball, when a polytope (and not too many). */
  vertices?: number[][];
  /** For lp balls: p. */
  p?: number;
  hull?: Polytope;
}

function lpFactor(p: number, q: number, m: number): number {
  // sup_{|u|_p <= 1} |u|_q = m^{max(0, 1/q - 1/p)}.
  const ip = p === Infinity ? 0 : 1 / p;
  const iq = q === Infinity ? 0 : 1 / q;
  return Math.pow(m, Math.max(0, iq - ip));
}

/**
 * Compares candidate K-norm mechanisms for a sensitivity space given as points (e.g. from an exact
 * parametrisation) or as { T, domain, samples, n } (sampled by {@link sensitivitySpace} with `rng`). For each candidate: the sensitivity (the
 * largest gauge over the points), the volume of the scaled ball Delta_K K, the entropy; the
 * containment between the scaled balls; the volume order; and the recommendation: the convex hull
 * of the points when it is a valid norm ball (full-dimensional, Theorem 3.19), else the smallest volume.
 *
 * The points are taken as THE sensitivity space: sampled points give lower bounds on the true
 * sensitivities (fine for comparing, never for releasing). The hull is exact in 2-3 dimensions;
 * above it uses HiGHS and a Monte Carlo volume (`volumeSamples`, default 5000, with `rng`).
 * `sensitivities` overrides the computed sensitivity of named candidates (e.g. published bounds).
 */
export async function compareKNorms(
  space: number[][] | SensitivitySpaceSpec,
  candidates: CandidateNorm[] = ['l1', 'l2', 'linf', 'hull'],
  opts: { sensitivities?: Record<string, number>; rng?: Rng; volumeSamples?: number } = {},
): Promise<KNormComparison> {
  const points = Array.isArray(space) ? space : isSpec(space) ? sensitivitySpace(space.T, space.domain, { samples: space.samples, n: space.n, rng: opts.rng }) : space;
  if (!Array.isArray(points) || points.length === 0) throw new InvalidArgumentError('points', 'must be a non-empty array of difference vectors', points);
  const m = points[0]!.length;
  if (!Number.isInteger(m) || m < 1) throw new InvalidArgumentError('points[0]', 'must be a non-empty array of numbers', points[0]);
  points.forEach((p, i) => {
    if (!Array.isArray(p) || p.length !== m || !p.every(Number.isFinite)) throw new InvalidArgumentError(`points[${i}]`, `must be ${m} finite numbers`, p);
  });
  if (!Array.isArray(candidates) || candidates.length === 0) throw new InvalidArgumentError('candidates', 'must be a non-empty array', candidates);
  const override = opts.sensitivities ?? {};
  const supGauge = (g: (u: ArrayLike<number>) => number) => points.reduce((s, u) => Math.max(s, g(u)), 0);
  const resolved: Resolved[] = [];
  let hullNote = '';
  for (const c of candidates) {
    if (c === 'l1' || c === 'l2' || c === 'linf') {
      const p = c === 'l1' ? 1 : c === 'l2' ? 2 : Infinity;
      const g = c === 'l1' ? normL1 : c === 'l2' ? normL2 : normLinf;
      const sens = override[c] ?? supGauge(g);
      const r: Resolved = { name: c, gauge: g, sensitivity: sens, logVolume: lpBallLogVolume(p, m, sens), p };
      if (c === 'l1') r.vertices = Array.from({ length: 2 * m }, (_, k) => Array.from({ length: m }, (_, i) => (i === k >> 1 ? (k & 1 ? -sens : sens) : 0)));
      if (c === 'linf' && m <= 12) r.vertices = Array.from({ length: 1 << m }, (_, mask) => Array.from({ length: m }, (_, i) => ((mask >> i) & 1 ? sens : -sens)));
      resolved.push(r);
    } else if (c === 'hull') {
      const sym = points.concat(points.map((u) => u.map((x) => -x)));
      if (m === 1) {
        const h = supGauge(normLinf);
        resolved.push({ name: 'hull', gauge: (u) => Math.abs(u[0]!) / h, sensitivity: 1, logVolume: Math.log(2 * h), p: 1, vertices: [[h], [-h]] });
        continue;
      }
      if (rank(sym) < m) {
        hullNote = ' (the convex hull of the points is not full-dimensional, so it is not a norm ball: reduce the dimension of T, Lemma 3.18)';
        continue;
      }
      const hull = await Polytope.fromVertices(m <= 3 ? sym : dedupeExtreme(sym));
      const vol = hull.volumeEstimate({ rng: resolveRng(opts.rng), samples: opts.volumeSamples ?? 5000 }).value;
      resolved.push({ name: 'hull', gauge: (u) => hull.gauge(u), sensitivity: override.hull ?? 1, logVolume: Math.log(vol), hull, ...(hull.vertices && m <= 3 ? { vertices: hull.vertices } : {}) });
    } else if (typeof c === 'object' && c !== null && typeof c.gauge === 'function') {
      checkPositive(c.unitVolume, `${c.name}.unitVolume`);
      const sens = override[c.name] ?? supGauge(c.gauge);
      const r: Resolved = { name: c.name, gauge: c.gauge, sensitivity: sens, logVolume: m * Math.log(sens) + Math.log(c.unitVolume) };
      if (c.vertices) r.vertices = c.vertices.map((v) => v.map((x) => x * sens));
      resolved.push(r);
    } else {
      throw new InvalidArgumentError('candidates', "must hold 'l1', 'l2', 'linf', 'hull' or { name, gauge, unitVolume }", c);
    }
  }
  const k = resolved.length;
  const containment: (boolean | null)[][] = resolved.map(() => new Array<boolean | null>(k).fill(null));
  for (let i = 0; i < k; i++)
    for (let j = 0; j < k; j++) {
      const a = resolved[i]!;
      const b = resolved[j]!;
      if (i === j) containment[i]![j] = true;
      else if (a.vertices) containment[i]![j] = a.vertices.every((v) => b.gauge(v) / b.sensitivity <= 1 + 1e-9);
      else if (a.p !== undefined && b.p !== undefined) containment[i]![j] = a.sensitivity * lpFactor(a.p, b.p, m) <= b.sensitivity * (1 + 1e-12);
      else if (a.p === 2 && b.hull?.halfspaces) {
        // The l2 ball of radius r lies in {A u <= b} (unit normals) iff r <= min b.
        containment[i]![j] = a.sensitivity <= Math.min(...b.hull.halfspaces.b) * b.sensitivity * (1 + 1e-12);
      }
    }
  const reports: CandidateReport[] = resolved.map((r) => ({
    name: r.name,
    sensitivity: r.sensitivity,
    volume: Math.exp(r.logVolume),
    logVolume: r.logVolume,
    entropyAtEps1: m + logGamma(m + 1) + r.logVolume,
  }));
  const volumeOrder = reports
    .slice()
    .sort((x, y) => x.logVolume - y.logVolume)
    .map((r) => r.name);
  const hull = resolved.find((r) => r.name === 'hull');
  const result: KNormComparison = {
    dimension: m,
    candidates: reports,
    containment,
    volumeOrder,
    recommendation: hull ? 'hull' : volumeOrder[0]!,
    reason: hull
      ? 'the convex hull of the sensitivity space is a valid norm ball, contained in every other ball that holds the space: optimal in both the containment and the volume order (Theorem 3.19)'
      : `smallest volume of the scaled ball (volume order, Theorem 3.15 / Corollary 3.12)${hullNote}`,
  };
  if (hull?.hull) result.hull = hull.hull;
  return result;
}

function rank(points: number[][]): number {
  const m = points[0]!.length;
  const basis: number[][] = [];
  const scale = points.reduce((s, p) => Math.max(s, normLinf(p)), 0) || 1;
  for (const p of points) {
    const v = p.slice();
    for (const b of basis) {
      let d = 0;
      for (let i = 0; i < m; i++) d += v[i]! * b[i]!;
      for (let i = 0; i < m; i++) v[i]! -= d * b[i]!;
    }
    const nv = normL2(v);
    if (nv > 1e-9 * scale) {
      basis.push(v.map((x) => x / nv));
      if (basis.length === m) break;
    }
  }
  return basis.length;
}

/** Above 3-D the LP hull takes every point as a generator; drop exact duplicates to keep it small. */
function dedupeExtreme(points: number[][]): number[][] {
  const seen = new Set<string>();
  return points.filter((p) => {
    const key = p.join(',');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
