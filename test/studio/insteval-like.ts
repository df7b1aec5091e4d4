/**
 * A small InstEval-shaped event table for the studio's privacy-unit tests: students `s` (the privacy
 * unit) rate 1 to 3 distinct lecturers `d` (12 lecturers, popularity skewed), each lecturer in one
 * department `dept` (4), a rating `y` in 1..5. Deterministic (a fixed linear congruential stream).
 * Every student has at most 3 rows, at most 3 lecturers and at most 3 departments, so the bounds
 * k = 3, m = 3 drop nothing: then the exact (non-private) group values are those of the bounded rows.
 */
export interface Rating {
  s: string;
  d: string;
  dept: string;
  y: number;
}

export const LECTURERS = Array.from({ length: 12 }, (_, i) => `L${i}`);
export const DEPTS = ['D0', 'D1', 'D2', 'D3'];
export const deptOf = (d: string) => DEPTS[Number(d.slice(1)) % 4]!;

export function instevalLike(students = 600): Rating[] {
  let x = 20261125;
  const next = () => ((x = (x * 1103515245 + 12345) % 2147483648), x / 2147483648);
  // Popularity: lecturer i with weight 1/(i + 1) (the first ones have many students, the last few).
  const w = LECTURERS.map((_, i) => 1 / (i + 1));
  const total = w.reduce((a, b) => a + b, 0);
  const pick = () => {
    let r = next() * total;
    for (let i = 0; i < w.length; i++) if ((r -= w[i]!) <= 0) return i;
    return w.length - 1;
  };
  const rows: Rating[] = [];
  for (let s = 1; s <= students; s++) {
    const n = 1 + Math.floor(next() * 3);
    const seen = new Set<number>();
    for (let j = 0; j < n; j++) {
      const l = pick();
      if (seen.has(l)) continue;
      seen.add(l);
      const base = 1 + (l % 5);
      const y = Math.min(5, Math.max(1, base + Math.floor(next() * 3) - 1));
      rows.push({ s: String(s), d: LECTURERS[l]!, dept: deptOf(LECTURERS[l]!), y });
    }
  }
  return rows;
}

export function toCsv(rows: readonly Rating[]): string {
  return `s,d,dept,y\n${rows.map((r) => `${r.s},${r.d},${r.dept},${r.y}`).join('\n')}\n`;
}

/** Exact mean of y per key of `by` (the non-private values of the unbounded = bounded rows). */
export function exactMeans(rows: readonly Rating[], by: 'd' | 'dept'): Map<string, { n: number; mean: number }> {
  const acc = new Map<string, { n: number; sum: number }>();
  for (const r of rows) {
    const a = acc.get(r[by]) ?? { n: 0, sum: 0 };
    a.n++;
    a.sum += r.y;
    acc.set(r[by], a);
  }
  return new Map([...acc].map(([k, a]) => [k, { n: a.n, mean: a.sum / a.n }]));
}

/**
 * Whether an exact mean lies in the c-fold widening of a released mean's interval. The interval is
 * [v - w, v + w] clipped to the clamp [l, u], so w = max(v - lo, hi - v) when at most one side was
 * clipped; when both were, the interval is [l, u] and holds every mean of clamped values. With the
 * rigorous half-width (w_s + h w_n)/n~ at alpha/2 per noisy part and Laplace noise, c = 5 fails only
 * if a part's noise exceeds 5 ln(40) = 18.4 scales: probability 2 e^-18.4 < 2e-8 per key.
 */
export function withinWidened(truth: number, v: number, iv: readonly [number, number], c: number): boolean {
  const [lo, hi] = iv;
  if (truth >= lo && truth <= hi) return true;
  return Math.abs(truth - v) <= c * Math.max(v - lo, hi - v) + 1e-12;
}
