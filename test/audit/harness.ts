/**
 * The privacy audit harness (DP-Sniper / Google DP-Auditorium style).
 *
 * For a mechanism M and a pair of neighbouring inputs (a, b) it draws `samples` outputs on each input
 * with a seeded generator, splits them into a SELECTION half and a HOLDOUT half, searches the
 * selection half for the event E that best separates M(a) from M(b), and then evaluates the chosen
 * events on the untouched holdout half. For an (eps, delta)-DP mechanism every event satisfies
 *
 *     P[M(a) in E] <= e^eps P[M(b) in E] + delta   (and with a and b swapped),
 *
 * so with Clopper-Pearson bounds p_lo <= P[M(a) in E] and p_hi >= P[M(b) in E] that hold with
 * probability 1 - alpha/(2K) each,
 *
 *     eps_lb = ln((p_lo - delta) / p_hi)
 *
 * is a lower bound on the true privacy loss. K events (both orders of the neighbours count as
 * separate events) are carried to the holdout and Bonferroni-corrected, so a CORRECT mechanism is
 * flagged (eps_lb > eps) with probability at most alpha = 1 - confidence = 1e-6 by default, whatever
 * the selection half did. `passed` is `eps_lb <= eps`.
 *
 * Event families searched on the selection half, on each scalar feature of the output (the value
 * itself, or `statistic(out)`, or for vector outputs each coordinate (up to `maxFeatures`), the sum,
 * and a projection on the direction separating the neighbours' means, fitted on the selection half):
 * - thresholds {y > t} and {y < t}, t on a grid of pooled selection quantiles (every distinct value
 *   when there are few);
 * - intervals {lo <= y < hi} on a coarser quantile grid;
 * - likelihood-ratio set events (DP-Sniper): the output is mapped to a discrete key, keys are sorted
 *   by their estimated ratio of frequencies, and every prefix of that order is a candidate set.
 *   Keys are: histogram bins of the pooled selection sample (always); the exact output value
 *   (`discrete: true`, or automatically when the outputs repeat: at most half the pooled selection
 *   sample are distinct values) — this catches histograms, argmax outputs, and naive float noise on
 *   a coarse uniform grid, where some outputs are reachable from one neighbour and not the other
 *   (Mironov 2012); and, with `floatPattern: true`, the float's (sign, binary exponent, two lowest
 *   mantissa bits). The last catches naive `x + noise` in floating point even with 53-bit uniforms:
 *   when the sum lands in a higher binade than the noise, the rounding (ties to even) biases the low
 *   mantissa bits, a pattern that M(b) = b + noise shows and M(a) = a + noise does not at the same
 *   output values. It is opt-in because every float-valued release leaks a little there; mechanisms
 *   that release lattice points (the 'safe' default) are immune to it; and, with `latticePattern: true`,
 *   the output's 2-adic valuation (the largest power of two dividing it). The last catches lattice
 *   releases whose grid spacing 2^k depends on the data (e.g. on a data-dependent noise scale): every
 *   output on one neighbour is a multiple of 2^k while outputs on the other are odd multiples of 2^(k-1).
 *
 * Sample sizes are CI-friendly by default (`samples` per neighbour, split in halves); setting the
 * environment variable DPKIT_AUDIT_LONG=1 (`npm run audit`) multiplies them by 10 (or by the
 * variable's value when it is a number >= 2), up to 1e6 per neighbour (or the given size if larger).
 */
import { betaQuantile, normalQuantile } from '../../src/math/special.js';
import { seededRng, type Rng } from '../../src/random/rng.js';

export type MechanismOutput = number | ArrayLike<number>;

export interface AuditOptions<I> {
  /** The mechanism under audit; must draw all its randomness from `rng`. */
  mechanism: (input: I, rng: Rng) => MechanismOutput;
  /** Two neighbouring inputs (under the relation the mechanism's guarantee claims). */
  neighbors: readonly [I, I];
  /** The claimed epsilon. */
  eps: number;
  /** The claimed delta (default 0). */
  delta?: number;
  /** Outputs drawn per neighbour (half for selection, half for holdout); default 40 000. */
  samples?: number;
  /** Seed of the generators (default 1). */
  seed?: number | string;
  /** Maps an output to the scalar the events are defined on (default: the output, or each coordinate and the sum). */
  statistic?: (out: MechanismOutput) => number;
  /** true: exact-value set events always; false: never; default: when the outputs repeat. */
  discrete?: boolean;
  /** 1 - probability that a correct mechanism is flagged; default 1 - 1e-6. */
  confidence?: number;
  /** Also search set events on (sign, exponent, low mantissa bits) of the output (see the file comment). */
  floatPattern?: boolean;
  /**
   * Also search set events on the output's 2-adic valuation v(y) (the largest integer v with y / 2^v an
   * odd integer; see the file comment). Catches lattice releases whose grid depends on the data.
   */
  latticePattern?: boolean;
  /** Number of (event, direction) pairs carried to the holdout, K (Bonferroni: each bound at alpha/(2K)); default 6. */
  candidates?: number;
  /** For vector outputs without a statistic: how many coordinates become features (default 8). */
  maxFeatures?: number;
  /** Apply the DPKIT_AUDIT_LONG multiplier to `samples` (default true). */
  allowLong?: boolean;
}

export interface AuditEventResult {
  /** Human-readable event, e.g. "y > 1.25 : P[a]/P[b]". */
  event: string;
  /** Holdout count of the event on the numerator neighbour and on the denominator neighbour. */
  countNum: number;
  countDen: number;
  /** Clopper-Pearson bounds on the holdout: lower for the numerator, upper for the denominator. */
  pNumLower: number;
  pDenUpper: number;
  /** ln((pNumLower - delta) / pDenUpper) (may be -Infinity). */
  epsLowerBound: number;
  /** The selection-half estimate of the event's privacy loss (plug-in, for diagnostics). */
  selectionEstimate: number;
}

export interface AuditResult {
  /** Lower bound on the privacy loss at the claimed delta, valid with probability >= confidence (>= 0). */
  epsLowerBound: number;
  /** epsLowerBound <= eps. */
  passed: boolean;
  /** The event that achieved the bound. */
  event: string;
  eps: number;
  delta: number;
  /** Outputs drawn per neighbour (after the long-run multiplier). */
  samples: number;
  selectionSize: number;
  holdoutSize: number;
  /** Candidate events scored on the selection half. */
  eventsSearched: number;
  /** Events evaluated on the holdout (the Bonferroni factor). */
  eventsTested: number;
  /** Error probability for a correct mechanism: 1 - confidence. */
  alpha: number;
  /** Holdout frequencies of the chosen event on the numerator and denominator neighbours. */
  pNum: number;
  pDen: number;
  details: AuditEventResult[];
}

const DEFAULT_SAMPLES = 40_000;
/** The most samples per neighbour a long run (DPKIT_AUDIT_LONG) multiplies up to. */
const LONG_CAP = 1_000_000;
const THRESHOLD_GRID = 512;
const INTERVAL_GRID = 48;
const HIST_BINS = 64;
const MAX_PREFIX_KEYS = 200_000;

/** The multiplier applied to sample sizes: DPKIT_AUDIT_LONG=1 gives 10, a number >= 2 gives itself. */
export function auditSampleMultiplier(): number {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const v = env?.DPKIT_AUDIT_LONG;
  if (v === undefined || v === '' || v === '0' || v.toLowerCase() === 'false') return 1;
  const n = Number(v);
  if (Number.isFinite(n) && n >= 2) return Math.floor(n);
  return 10;
}

/**
 * The samples per neighbour actually drawn: `base`, times {@link auditSampleMultiplier} in long runs
 * (when allowed), but never beyond max(base, 1e6) (memory: features x samples doubles per side).
 */
export function auditSampleSize(base: number, allowLong = true): number {
  const multiplier = allowLong ? auditSampleMultiplier() : 1;
  return Math.floor(multiplier === 1 ? base : Math.min(base * multiplier, Math.max(base, LONG_CAP)));
}

/** Clopper-Pearson one-sided lower bound for a binomial proportion at level alpha. */
export function clopperPearsonLower(x: number, n: number, alpha: number): number {
  if (x <= 0) return 0;
  return betaQuantile(alpha, x, n - x + 1);
}

/** Clopper-Pearson one-sided upper bound for a binomial proportion at level alpha. */
export function clopperPearsonUpper(x: number, n: number, alpha: number): number {
  if (x >= n) return 1;
  return betaQuantile(1 - alpha, x + 1, n - x);
}

type KeyKind = 'value' | 'bin' | 'bits' | 'twoAdic';

type EventSpec =
  | { kind: 'gt'; feature: number; t: number }
  | { kind: 'lt'; feature: number; t: number }
  | { kind: 'interval'; feature: number; lo: number; hi: number }
  | { kind: 'set'; feature: number; keyKind: KeyKind; keys: number[]; edges?: Float64Array };

interface Candidate {
  spec: EventSpec;
  /** Which neighbour is the numerator (0: P[a]/P[b], 1: P[b]/P[a]). */
  num: 0 | 1;
  score: number;
  estimate: number;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** (sign, exponent) in the high 12 bits, then the two lowest mantissa bits: a small integer key. */
function bitsKey(y: number): number {
  f64[0] = y;
  const lo = LITTLE_ENDIAN ? u32[0]! : u32[1]!;
  const hi = LITTLE_ENDIAN ? u32[1]! : u32[0]!;
  return (hi >>> 20) * 4 + (lo & 3);
}

/** The value of 0 under {@link twoAdicValuation} (0 is divisible by every power of two). */
export const TWO_ADIC_ZERO = 2048;

/**
 * The 2-adic valuation of a finite double y != 0: the largest integer v such that y / 2^v is an odd
 * integer, i.e. (binary exponent of the last significand bit) + (trailing zeros of the significand).
 * Returns {@link TWO_ADIC_ZERO} for 0 and NaN for non-finite y.
 */
export function twoAdicValuation(y: number): number {
  if (y === 0) return TWO_ADIC_ZERO;
  if (!Number.isFinite(y)) return NaN;
  f64[0] = y;
  const lo = LITTLE_ENDIAN ? u32[0]! : u32[1]!;
  const hi = LITTLE_ENDIAN ? u32[1]! : u32[0]!;
  const e = (hi >>> 20) & 0x7ff;
  const mHi = (hi & 0xfffff) | (e === 0 ? 0 : 0x100000); // the implicit leading bit of normal numbers
  const tz = lo !== 0 ? 31 - Math.clz32(lo & -lo) : 32 + 31 - Math.clz32(mHi & -mHi);
  return (e === 0 ? 1 : e) - 1075 + tz;
}

function lowerBound(a: Float64Array, t: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (a[m]! < t) lo = m + 1;
    else hi = m;
  }
  return lo;
}

function upperBound(a: Float64Array, t: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (a[m]! <= t) lo = m + 1;
    else hi = m;
  }
  return lo;
}

function binIndex(edges: Float64Array, y: number): number {
  // bins are [edges[i], edges[i+1]); below the first edge -> 0, at or above the last -> last bin
  const k = upperBound(edges, y) - 1;
  return Math.max(0, Math.min(edges.length - 2, k));
}

function keyOf(spec: { keyKind: KeyKind; edges?: Float64Array }, y: number): number {
  if (spec.keyKind === 'value') return y;
  if (spec.keyKind === 'bits') return bitsKey(y);
  if (spec.keyKind === 'twoAdic') return twoAdicValuation(y);
  return binIndex(spec.edges!, y);
}

function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  return Number(x.toPrecision(6)).toString();
}

/** Draws the features of `n` outputs of the mechanism on `input`. */
function drawFeatures<I>(opts: AuditOptions<I>, input: I, rng: Rng, n: number, names: string[] | undefined): { features: Float64Array[]; names: string[] } {
  let features: Float64Array[] | undefined;
  let featureNames = names;
  const maxFeatures = opts.maxFeatures ?? 8;
  for (let i = 0; i < n; i++) {
    const out = opts.mechanism(input, rng);
    if (features === undefined) {
      if (opts.statistic !== undefined || typeof out === 'number') featureNames ??= [opts.statistic ? 'stat' : 'y'];
      else {
        const d = out.length;
        if (d < 1) throw new Error('auditDP: the mechanism returned an empty array');
        const ns: string[] = [];
        for (let j = 0; j < Math.min(d, maxFeatures); j++) ns.push(`y[${j}]`);
        if (d > 1) ns.push('sum(y)');
        featureNames ??= ns;
      }
      features = featureNames.map(() => new Float64Array(n));
    }
    if (opts.statistic !== undefined) features[0]![i] = opts.statistic(out);
    else if (typeof out === 'number') features[0]![i] = out;
    else {
      const m = features.length;
      const coords = m > 1 ? m - 1 : 1;
      let s = 0;
      for (let j = 0; j < out.length; j++) s += out[j]!;
      for (let j = 0; j < coords; j++) features[j]![i] = out[j]!;
      if (m > 1) features[m - 1]![i] = s;
    }
    for (const f of features) {
      if (Number.isNaN(f[i]!)) throw new Error('auditDP: the mechanism (or statistic) produced NaN');
    }
  }
  return { features: features ?? [], names: featureNames ?? [] };
}

/**
 * For vector outputs: appends the feature proj(y) = sum_j w_j y_j over the coordinate features, with
 * w_j = (mean_b - mean_a) / pooled variance of coordinate j estimated on the SELECTION half only (a
 * diagonal linear discriminant), so the holdout evaluation stays honest.
 */
function addProjectionFeature(fa: Float64Array[], fb: Float64Array[], names: string[], nSel: number): void {
  const coords: number[] = [];
  names.forEach((nm, i) => {
    if (nm.startsWith('y[')) coords.push(i);
  });
  if (coords.length < 2) return;
  const w = coords.map((j) => {
    const stats = (x: Float64Array) => {
      let m = 0;
      for (let i = 0; i < nSel; i++) m += x[i]!;
      m /= nSel;
      let v = 0;
      for (let i = 0; i < nSel; i++) v += (x[i]! - m) ** 2;
      return { m, v: v / Math.max(1, nSel - 1) };
    };
    const a = stats(fa[j]!);
    const b = stats(fb[j]!);
    const pooled = (a.v + b.v) / 2;
    return pooled > 0 && Number.isFinite(pooled) ? (b.m - a.m) / pooled : 0;
  });
  if (w.every((x) => x === 0 || !Number.isFinite(x))) return;
  const project = (f: Float64Array[]) => {
    const n = f[0]!.length;
    const out = new Float64Array(n);
    coords.forEach((j, k) => {
      const wk = Number.isFinite(w[k]!) ? w[k]! : 0;
      if (wk === 0) return;
      const x = f[j]!;
      for (let i = 0; i < n; i++) out[i]! += wk * x[i]!;
    });
    return out;
  };
  fa.push(project(fa));
  fb.push(project(fb));
  names.push('proj(y)');
}

/**
 * Audits a mechanism on a pair of neighbouring inputs; see the file comment for the method.
 * Deterministic for a fixed seed.
 */
export function auditDP<I>(opts: AuditOptions<I>): AuditResult {
  const eps = opts.eps;
  const delta = opts.delta ?? 0;
  if (!(eps >= 0) || !Number.isFinite(eps)) throw new Error(`auditDP: eps must be finite and >= 0, got ${eps}`);
  if (!(delta >= 0 && delta < 1)) throw new Error(`auditDP: delta must be in [0, 1), got ${delta}`);
  const confidence = opts.confidence ?? 1 - 1e-6;
  if (!(confidence > 0 && confidence < 1)) throw new Error(`auditDP: confidence must be in (0, 1), got ${confidence}`);
  const alpha = 1 - confidence;
  const samples = auditSampleSize(opts.samples ?? DEFAULT_SAMPLES, opts.allowLong !== false);
  if (!(samples >= 200)) throw new Error(`auditDP: samples must be >= 200, got ${samples}`);
  const K = Math.max(1, Math.floor(opts.candidates ?? 6));
  const nSel = samples >> 1;
  const nHold = samples - nSel;
  const seed = opts.seed ?? 1;

  // Independent streams per neighbour so each side's outputs do not depend on the other's.
  const drawA = drawFeatures(opts, opts.neighbors[0], seededRng(`audit:${String(seed)}:a`), samples, undefined);
  const drawB = drawFeatures(opts, opts.neighbors[1], seededRng(`audit:${String(seed)}:b`), samples, drawA.names);
  if (drawB.features.length !== drawA.features.length) throw new Error('auditDP: the two neighbours produced outputs of different shapes');
  const names = drawA.names.slice();
  addProjectionFeature(drawA.features, drawB.features, names, nSel);
  const sel: [Float64Array[], Float64Array[]] = [drawA.features.map((f) => f.subarray(0, nSel)), drawB.features.map((f) => f.subarray(0, nSel))];
  const hold: [Float64Array[], Float64Array[]] = [drawA.features.map((f) => f.subarray(nSel)), drawB.features.map((f) => f.subarray(nSel))];

  // Selection score: the bound the event would give on a holdout of the same size if the
  // selection frequencies were the truth (normal approximation, cheap), at the per-test level.
  const z = normalQuantile(1 - alpha / (2 * K));
  const scoreOf = (cNum: number, cDen: number): number => {
    const pn = cNum / nSel;
    const pd = cDen / nSel;
    const lo = pn - z * Math.sqrt((pn * (1 - pn)) / nHold) - delta;
    const hi = pd + z * Math.sqrt((pd * (1 - pd)) / nHold) + (z * z) / nHold;
    return lo > 0 ? Math.log(lo / hi) : -Infinity;
  };
  const estimateOf = (cNum: number, cDen: number): number => {
    const pn = cNum / nSel - delta;
    return pn > 0 ? Math.log(pn / Math.max(cDen / nSel, 0.5 / nSel)) : -Infinity;
  };

  const candidates: Candidate[] = [];
  let searched = 0;
  const consider = (spec: EventSpec, cA: number, cB: number): void => {
    searched += 2;
    const sAB = scoreOf(cA, cB);
    if (sAB > -Infinity) candidates.push({ spec, num: 0, score: sAB, estimate: estimateOf(cA, cB) });
    const sBA = scoreOf(cB, cA);
    if (sBA > -Infinity) candidates.push({ spec, num: 1, score: sBA, estimate: estimateOf(cB, cA) });
  };

  for (let f = 0; f < names.length; f++) {
    const a = Float64Array.from(sel[0][f]!).sort();
    const b = Float64Array.from(sel[1][f]!).sort();
    const pooled = new Float64Array(a.length + b.length);
    pooled.set(a);
    pooled.set(b, a.length);
    pooled.sort();
    const distinct: number[] = [];
    for (let i = 0; i < pooled.length; i++) if (i === 0 || pooled[i] !== pooled[i - 1]) distinct.push(pooled[i]!);
    const isDiscrete = opts.discrete ?? distinct.length <= pooled.length / 2;

    // Threshold events.
    const quantileGrid = (g: number): number[] => {
      if (distinct.length <= g) return distinct;
      const out: number[] = [];
      for (let i = 1; i <= g; i++) {
        const v = pooled[Math.min(pooled.length - 1, Math.floor((i * pooled.length) / (g + 1)))]!;
        if (out.length === 0 || out[out.length - 1] !== v) out.push(v);
      }
      return out;
    };
    for (const t of quantileGrid(THRESHOLD_GRID)) {
      consider({ kind: 'gt', feature: f, t }, a.length - upperBound(a, t), b.length - upperBound(b, t));
      consider({ kind: 'lt', feature: f, t }, lowerBound(a, t), lowerBound(b, t));
    }
    // Interval events.
    const ig = quantileGrid(INTERVAL_GRID);
    for (let i = 0; i < ig.length; i++) {
      for (let j = i + 1; j < ig.length; j++) {
        const lo = ig[i]!;
        const hi = ig[j]!;
        consider({ kind: 'interval', feature: f, lo, hi }, lowerBound(a, hi) - lowerBound(a, lo), lowerBound(b, hi) - lowerBound(b, lo));
      }
    }
    // Likelihood-ratio set events over discrete keys.
    const keyKinds: { keyKind: KeyKind; edges?: Float64Array }[] = [];
    if (!isDiscrete) {
      const e = quantileGrid(HIST_BINS - 1);
      const edges = new Float64Array(e.length + 2);
      edges[0] = pooled[0]!;
      edges.set(e, 1);
      edges[edges.length - 1] = pooled[pooled.length - 1]!;
      keyKinds.push({ keyKind: 'bin', edges });
    } else keyKinds.push({ keyKind: 'value' });
    if (opts.floatPattern) keyKinds.push({ keyKind: 'bits' });
    if (opts.latticePattern) keyKinds.push({ keyKind: 'twoAdic' });
    for (const kk of keyKinds) {
      const counts = new Map<number, [number, number]>();
      for (let side = 0; side < 2; side++) {
        const xs = sel[side]![f]!;
        for (let i = 0; i < xs.length; i++) {
          const k = keyOf(kk, xs[i]!);
          let c = counts.get(k);
          if (c === undefined) {
            c = [0, 0];
            counts.set(k, c);
          }
          c[side]!++;
        }
      }
      if (counts.size > MAX_PREFIX_KEYS) continue;
      const entries = [...counts.entries()];
      for (const num of [0, 1] as const) {
        const den = 1 - num;
        entries.sort((x, y) => (y[1][num] + 0.5) / (y[1][den] + 0.5) - (x[1][num] + 0.5) / (x[1][den] + 0.5));
        let cNum = 0;
        let cDen = 0;
        let best = -Infinity;
        let bestLen = 0;
        let bestEst = -Infinity;
        for (let i = 0; i < entries.length - 1; i++) {
          cNum += entries[i]![1][num];
          cDen += entries[i]![1][den];
          searched++;
          const s = scoreOf(cNum, cDen);
          if (s > best) {
            best = s;
            bestLen = i + 1;
            bestEst = estimateOf(cNum, cDen);
          }
        }
        if (bestLen > 0) {
          const keys = entries.slice(0, bestLen).map((e) => e[0]);
          const spec: EventSpec = { kind: 'set', feature: f, keyKind: kk.keyKind, keys };
          if (kk.edges) spec.edges = kk.edges;
          candidates.push({ spec, num, score: best, estimate: bestEst });
        }
      }
    }
  }

  candidates.sort((x, y) => y.score - x.score);
  const chosen = candidates.slice(0, K);
  const eventsTested = Math.max(1, chosen.length);
  const level = alpha / (2 * eventsTested);

  const countOn = (spec: EventSpec, xs: Float64Array): number => {
    let c = 0;
    if (spec.kind === 'gt') {
      for (let i = 0; i < xs.length; i++) if (xs[i]! > spec.t) c++;
    } else if (spec.kind === 'lt') {
      for (let i = 0; i < xs.length; i++) if (xs[i]! < spec.t) c++;
    } else if (spec.kind === 'interval') {
      for (let i = 0; i < xs.length; i++) if (xs[i]! >= spec.lo && xs[i]! < spec.hi) c++;
    } else {
      const set = new Set(spec.keys);
      for (let i = 0; i < xs.length; i++) if (set.has(keyOf(spec, xs[i]!))) c++;
    }
    return c;
  };
  const describe = (spec: EventSpec, num: 0 | 1): string => {
    const y = names[spec.feature]!;
    const ratio = num === 0 ? 'P[a]/P[b]' : 'P[b]/P[a]';
    let e: string;
    if (spec.kind === 'gt') e = `${y} > ${fmt(spec.t)}`;
    else if (spec.kind === 'lt') e = `${y} < ${fmt(spec.t)}`;
    else if (spec.kind === 'interval') e = `${fmt(spec.lo)} <= ${y} < ${fmt(spec.hi)}`;
    else {
      const shown = spec.keys.slice(0, 5).map((k) => (spec.keyKind === 'bits' ? `0x${k.toString(16)}` : spec.keyKind === 'twoAdic' ? String(k) : fmt(k)));
      const more = spec.keys.length > 5 ? `, ... (${spec.keys.length} keys)` : '';
      const what = spec.keyKind === 'value' ? y : spec.keyKind === 'bin' ? `bin(${y})` : spec.keyKind === 'twoAdic' ? `v2(${y})` : `bits(${y})`;
      e = `${what} in {${shown.join(', ')}${more}}`;
    }
    return `${e} : ${ratio}`;
  };

  const details: AuditEventResult[] = chosen.map((c) => {
    const cNum = countOn(c.spec, hold[c.num][c.spec.feature]!);
    const cDen = countOn(c.spec, hold[1 - c.num]![c.spec.feature]!);
    const pNumLower = clopperPearsonLower(cNum, nHold, level);
    const pDenUpper = clopperPearsonUpper(cDen, nHold, level);
    const num = pNumLower - delta;
    const epsLowerBound = num > 0 ? Math.log(num / pDenUpper) : -Infinity;
    return { event: describe(c.spec, c.num), countNum: cNum, countDen: cDen, pNumLower, pDenUpper, epsLowerBound, selectionEstimate: c.estimate };
  });
  details.sort((x, y) => y.epsLowerBound - x.epsLowerBound);
  const best = details[0];
  const epsLowerBound = Math.max(0, best?.epsLowerBound ?? 0);
  return {
    epsLowerBound,
    passed: epsLowerBound <= eps,
    event: best?.event ?? '(no event with positive mass)',
    eps,
    delta,
    samples,
    selectionSize: nSel,
    holdoutSize: nHold,
    eventsSearched: searched,
    eventsTested,
    alpha,
    pNum: best ? best.countNum / nHold : 0,
    pDen: best ? best.countDen / nHold : 0,
    details,
  };
}

/** A one-line summary for assertion messages. */
export function formatAudit(r: AuditResult): string {
  return `eps_lb=${r.epsLowerBound.toFixed(4)} (claimed eps=${r.eps}, delta=${r.delta}) ${r.passed ? 'PASSED' : 'FLAGGED'} on ${r.event} [holdout ${fmt(r.pNum)} vs ${fmt(r.pDen)}, n=${r.holdoutSize}, ${r.eventsTested} events tested, ${r.eventsSearched} searched]`;
}
