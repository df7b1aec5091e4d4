/**
 * e^{-a} for a >= 0 in plain JavaScript arithmetic, for the per-row work of the logistic kernel
 * (kernel.ts), where Math.exp (a call into the engine's C library) was a third of an evaluation.
 *
 * Table-driven reduction (Tang 1989, "Table-driven implementation of the exponential function in
 * IEEE floating-point arithmetic", ACM TOMS 15(2)): k = round(64 a / ln 2), r = a - k ln2/64 with
 * |r| <= ln2/128 (Cody & Waite: ln2/64 split into a 32-bit head, so k ln2_hi/64 is exact for
 * k < 2^21, and a tail), then with k = 64 q + j,
 *
 *   e^{-a} = 2^{-q} * 2^{-j/64} * e^{-r},   e^{-r} = sum_{m <= 7} (-r)^m / m!  (truncation < 1e-19 relative),
 *
 * 2^{-q} and 2^{-j/64} from tables. Measured against Math.exp: within 4e-16 relative for a <= 700
 * (a few ulp; the kernel's sums carry far more rounding than that), at most 5e-324 for a > 745
 * and 0 from a = 746 on (e^{-a} underflows), NaN for NaN. Not a mechanism: it never touches randomness or a released value's
 * calibration, only the solver's objective, whose minimiser is checked against the absolute
 * gradient tolerance as before.
 */

/** 2^{-j/64}, j < 64. */
const FRAC = new Float64Array(64);
for (let j = 0; j < 64; j++) FRAC[j] = Math.pow(2, -j / 64);
/** 2^{-q}, q < 1100 (0 from q = 1075 on). */
const POW2 = new Float64Array(1100);
for (let q = 0; q < 1100; q++) POW2[q] = Math.pow(2, -q);

const INV_LN2_64 = 64 / Math.LN2;
/** fdlibm's ln 2 = LN2_HI + LN2_LO (LN2_HI with 32 significant bits), divided by 64 (exact). */
const LN2_64_HI = 6.93147180369123816490e-1 / 64;
const LN2_64_LO = 1.90821492927058770002e-10 / 64;
/** 1.5 * 2^52: x + SHIFT - SHIFT rounds |x| < 2^51 to the nearest integer. */
const SHIFT = 6755399441055744;

/** e^{-a} for a >= 0 (NaN for NaN). */
export function expNegative(a: number): number {
  const x = a > 746 ? 746 : a;
  const kf = x * INV_LN2_64 + SHIFT - SHIFT;
  const k = kf | 0;
  const r = x - kf * LN2_64_HI - kf * LN2_64_LO;
  const p = 1 - r * (1 - r * (0.5 - r * (1 / 6 - r * (1 / 24 - r * (1 / 120 - r * (1 / 720 - r * (1 / 5040)))))));
  return POW2[k >> 6]! * (FRAC[k & 63]! * p);
}
