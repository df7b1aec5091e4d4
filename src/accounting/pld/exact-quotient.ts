/**
 * Whether a floating-point quotient is exact: fl(n / d) = n / d exactly iff q d = n for q = fl(n / d),
 * checked with Dekker's error-free product (Veltkamp splitting; Dekker 1971, "A floating-point
 * technique for extending the available precision"): q d = p + e exactly, so exact iff p = n and
 * e = 0. Used to place a loss exactly on the grid when it is exact, and to round it up otherwise.
 * Valid for |values| in [2^-900, 2^900] (no overflow or underflow in the splitting); outside that
 * range it answers false (the caller then rounds up, which is always safe).
 */
const SPLIT = 134217729; // 2^27 + 1

function twoProductError(a: number, b: number, p: number): number {
  const ca = SPLIT * a;
  const ah = ca - (ca - a);
  const al = a - ah;
  const cb = SPLIT * b;
  const bh = cb - (cb - b);
  const bl = b - bh;
  return ah * bh - p + ah * bl + al * bh + al * bl;
}

/** The quotient n / d and whether it is exact in double precision. */
export function exactQuotient(n: number, d: number): { value: number; exact: boolean } {
  const q = n / d;
  const ok = (x: number): boolean => x === 0 || (Math.abs(x) >= 2 ** -900 && Math.abs(x) <= 2 ** 900);
  if (!Number.isFinite(q) || !ok(n) || !ok(d) || !ok(q)) return { value: q, exact: false };
  const p = q * d;
  return { value: q, exact: p === n && twoProductError(q, d, p) === 0 };
}
