/**
 * Linear convolution of two non-negative Float64Arrays (probability mass functions), by an iterative
 * radix-2 Cooley-Tukey FFT (decimation in time, in place, bit-reversed input order) or, for short
 * inputs, by the direct sum; each returns a rigorous bound on the l1 error of the computed result.
 *
 * Error bounds (u = 2^-53, gamma_n = n u / (1 - n u)):
 * - direct sum: every output is a sum of at most m = min(na, nb) products of non-negative numbers, so
 *   each is within a relative gamma_{m+1} of its exact value (Higham 2002, "Accuracy and Stability
 *   of Numerical Algorithms", 2nd ed., Section 3.1, inner products of non-negative vectors).
 * - FFT of length N = 2^t: Higham 2002, Theorem 24.2: y^ = fl(F_N x) satisfies
 *   |y^ - y|_2 <= g |y|_2 with g = t eta / (1 - t eta), eta = mu + gamma_4 (sqrt 2 + mu), mu the
 *   error of the computed twiddle factors (|w^ - w| <= mu; here cos/sin of fl(2 pi k / N), mu <= 32 u).
 *   With A = F a, B = F b (|A|_inf <= |a|_1 = mA, |A|_2 = sqrt(N) |a|_2), the product P^ = A^ .* B^
 *   has |P^ - P|_2 <= g sqrt(N) |a|_2 (mB + e) + mA g sqrt(N) |b|_2 + sqrt2 gamma_2 (1 + g) sqrt(N) |a|_2 (mB + e),
 *   e = g sqrt(N) |b|_2 (Higham, Lemma 3.5 for the complex product), and the inverse transform (the
 *   1/N scaling is exact) gives
 *     |c^ - c|_2 <= (1 + g) |P^ - P|_2 / sqrt(N) + g |a|_2 mB.
 *   The l1 error over the M = na + nb - 1 outputs kept is at most sqrt(M) times that. The bound is
 *   evaluated with the actual norms of a and b and multiplied by 1.01 for the rounding of its own terms.
 * Negative outputs (the true ones are >= 0) are set to 0, which never increases any |c^_i - c_i|.
 *
 * Work: O(N log N) for the FFT, no allocation per element (twiddle tables are cached per N).
 */

const U = 2 ** -53;

function gamma(n: number): number {
  return (n * U) / (1 - n * U);
}

/** Bound on the twiddle-factor error |w^ - w| (see the module comment). */
const MU = 32 * U;

const twiddleCache = new Map<number, { cos: Float64Array; sin: Float64Array }>();

function twiddles(n: number): { cos: Float64Array; sin: Float64Array } {
  let t = twiddleCache.get(n);
  if (t === undefined) {
    const half = n >> 1;
    const cos = new Float64Array(half);
    const sin = new Float64Array(half);
    for (let k = 0; k < half; k++) {
      const angle = (2 * Math.PI * k) / n;
      cos[k] = Math.cos(angle);
      sin[k] = Math.sin(angle);
    }
    t = { cos, sin };
    if (twiddleCache.size > 24) twiddleCache.clear();
    twiddleCache.set(n, t);
  }
  return t;
}

/**
 * In-place complex FFT of length re.length (a power of two): forward computes
 * X_k = sum_j x_j exp(-2 pi i jk/N); inverse uses exp(+2 pi i jk/N) and does NOT divide by N.
 */
export function fftInPlace(re: Float64Array, im: Float64Array, inverse: boolean): void {
  const n = re.length;
  if (n !== im.length || (n & (n - 1)) !== 0) throw new RangeError('fftInPlace: lengths must be equal powers of two');
  if (n <= 1) return;
  // Bit-reversal permutation.
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      const tr = re[i]!;
      re[i] = re[j]!;
      re[j] = tr;
      const ti = im[i]!;
      im[i] = im[j]!;
      im[j] = ti;
    }
  }
  const { cos, sin } = twiddles(n);
  const sign = inverse ? 1 : -1;
  for (let len = 2; len <= n; len <<= 1) {
    const half = len >> 1;
    const step = n / len;
    for (let start = 0; start < n; start += len) {
      for (let k = 0; k < half; k++) {
        const wr = cos[k * step]!;
        const wi = sign * sin[k * step]!;
        const p = start + k;
        const q = p + half;
        const xr = re[q]!;
        const xi = im[q]!;
        const tr = wr * xr - wi * xi;
        const ti = wr * xi + wi * xr;
        const ur = re[p]!;
        const ui = im[p]!;
        re[p] = ur + tr;
        im[p] = ui + ti;
        re[q] = ur - tr;
        im[q] = ui - ti;
      }
    }
  }
}

/** The result of a convolution and a bound on its l1 error. */
export interface Convolution {
  /** c_k = sum_i a_i b_(k-i), k = 0 .. na + nb - 2, negative roundoff clipped to 0. */
  values: Float64Array;
  /** Rigorous bound on |values - c|_1 beyond the relative part (see the module comment). */
  errorL1: number;
  /** Bound on the relative error of each value (the direct sum of non-negative terms). */
  relError: number;
}

function sumAndNorm(a: Float64Array): [number, number] {
  let s = 0;
  let s2 = 0;
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!;
    s += v;
    s2 += v * v;
  }
  // Rounding of the sums themselves (all terms >= 0).
  const f = 1 + gamma(a.length + 2);
  return [s * f, Math.sqrt(s2 * f) * (1 + 2 * U)];
}

/** Direct linear convolution (for short inputs). */
export function convolveDirect(a: Float64Array, b: Float64Array): Convolution {
  const na = a.length;
  const nb = b.length;
  const out = new Float64Array(na + nb - 1);
  for (let i = 0; i < na; i++) {
    const ai = a[i]!;
    if (ai === 0) continue;
    for (let j = 0; j < nb; j++) out[i + j] += ai * b[j]!;
  }
  return { values: out, errorL1: 0, relError: gamma(Math.min(na, nb) + 1) };
}

/** Linear convolution by FFT (zero-padded to a power of two >= na + nb - 1). */
export function convolveFft(a: Float64Array, b: Float64Array): Convolution {
  const na = a.length;
  const nb = b.length;
  const m = na + nb - 1;
  let n = 1;
  let t = 0;
  while (n < m) {
    n <<= 1;
    t++;
  }
  const same = a === b;
  const ar = new Float64Array(n);
  const ai = new Float64Array(n);
  ar.set(a);
  fftInPlace(ar, ai, false);
  if (same) {
    for (let k = 0; k < n; k++) {
      const x = ar[k]!;
      const y = ai[k]!;
      ar[k] = x * x - y * y;
      ai[k] = 2 * x * y;
    }
  } else {
    const br = new Float64Array(n);
    const bi = new Float64Array(n);
    br.set(b);
    fftInPlace(br, bi, false);
    for (let k = 0; k < n; k++) {
      const x = ar[k]!;
      const y = ai[k]!;
      const u = br[k]!;
      const v = bi[k]!;
      ar[k] = x * u - y * v;
      ai[k] = x * v + y * u;
    }
  }
  fftInPlace(ar, ai, true);
  const out = new Float64Array(m);
  const inv = 1 / n;
  for (let k = 0; k < m; k++) {
    const v = ar[k]! * inv;
    out[k] = v > 0 ? v : 0;
  }
  const [ma, a2] = sumAndNorm(a);
  const [mb, b2] = sumAndNorm(b);
  const eta = MU + gamma(4) * (Math.SQRT2 + MU);
  const g = (t * eta) / (1 - t * eta);
  const sq = Math.sqrt(n);
  const e = g * sq * b2;
  const dP = g * sq * a2 * (mb + e) + ma * g * sq * b2 + Math.SQRT2 * gamma(2) * (1 + g) * sq * a2 * (mb + e);
  const errL2 = (1 + g) * (dP / sq) + g * a2 * mb;
  return { values: out, errorL1: Math.sqrt(m) * errL2 * 1.01, relError: 0 };
}

function nonZeros(a: Float64Array): number {
  let c = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== 0) c++;
  return c;
}

/**
 * Linear convolution, choosing the direct sum (which skips zero masses of its outer operand, so
 * sparse PLDs such as pure-DP ones stay exact up to relative rounding) when it is cheaper.
 */
export function convolve(a: Float64Array, b: Float64Array): Convolution {
  if (a.length === 0 || b.length === 0) throw new RangeError('convolve: empty input');
  const m = a.length + b.length - 1;
  let n = 1;
  while (n < m) n <<= 1;
  const fft = 3 * n * Math.log2(Math.max(n, 2)) * 4;
  const da = nonZeros(a) * b.length;
  const db = nonZeros(b) * a.length;
  if (Math.min(da, db) <= fft) return da <= db ? convolveDirect(a, b) : convolveDirect(b, a);
  return convolveFft(a, b);
}
