/**
 * Axis ticks and number formatting for the report charts (browser-safe, no dependencies).
 *
 * Ticks are "nice": every tick is an integer multiple of a step m * 10^k with m in {1, 2, 2.5, 5}
 * (Heckbert, "Nice numbers for graph labels", Graphics Gems, 1990, with 2.5 added as in
 * Wilkinson's "The Grammar of Graphics" Q sequence), and the axis domain is widened to the
 * enclosing multiples of the step. Each tick is computed as an integer times m, scaled by the power
 * of ten in one operation, so 0.1 + 0.2 style drift never reaches a label.
 */

/** The mantissas of the allowed steps, in increasing order. */
export const NICE_MANTISSAS = [1, 2, 2.5, 5] as const;

export interface NiceScale {
  /** The widened domain: the first and last tick. */
  lo: number;
  hi: number;
  step: number;
  ticks: number[];
}

function scaled(i: number, m: number, k: number): number {
  // i * m * 10^k with one rounding: i * m is an exact small integer multiple of 0.5
  return k >= 0 ? i * m * 10 ** k : (i * m) / 10 ** -k;
}

/**
 * Nice ticks covering [lo, hi] with about `count` intervals (at least 2 ticks). A degenerate range
 * (lo == hi) is widened around the value; non-finite input gives the domain [0, 1].
 */
export function niceTicks(lo: number, hi: number, count = 5): NiceScale {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) {
    lo = 0;
    hi = 1;
  }
  if (lo > hi) [lo, hi] = [hi, lo];
  if (lo === hi) {
    const d = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    lo -= d;
    hi += d;
  }
  const n = Math.max(1, Math.round(count));
  const raw = (hi - lo) / n;
  let k = Math.floor(Math.log10(raw));
  let best: { m: number; k: number; a: number; b: number } | undefined;
  // candidates: each mantissa at the power of ten of the raw step and the one above; take the
  // smallest step whose widened domain has at most n + 1 intervals (close to the requested count)
  for (const kk of [k - 1, k, k + 1]) {
    for (const m of NICE_MANTISSAS) {
      const step = scaled(1, m, kk);
      const a = Math.floor(lo / step + 1e-9);
      const b = Math.ceil(hi / step - 1e-9);
      if (b - a <= n + 1 && (best === undefined || step < scaled(1, best.m, best.k))) best = { m, k: kk, a, b };
    }
  }
  if (!best) {
    k += 2;
    const step = scaled(1, 1, k);
    best = { m: 1, k, a: Math.floor(lo / step), b: Math.ceil(hi / step) };
  }
  const ticks: number[] = [];
  for (let i = best.a; i <= best.b; i++) ticks.push(scaled(i, best.m, best.k) || 0);
  return { lo: ticks[0]!, hi: ticks[ticks.length - 1]!, step: scaled(1, best.m, best.k), ticks };
}

/** True when `x` is 0 or m * 10^k * i for a mantissa m of {@link NICE_MANTISSAS} (tests, checks). */
export function isNiceStep(step: number): boolean {
  if (!(step > 0) || !Number.isFinite(step)) return false;
  const k = Math.floor(Math.log10(step));
  const m = step / 10 ** k;
  return [1, 2, 2.5, 5, 10].some((c) => Math.abs(m - c) < 1e-9 * c);
}

/** Decimals needed to show every multiple of `step` exactly. */
export function stepDecimals(step: number): number {
  for (let d = 0; d <= 20; d++) if (Math.abs(Math.round(step * 10 ** d) - step * 10 ** d) < 1e-9 * 10 ** d * step) return d;
  return 20;
}

const cache = new Map<string, Intl.NumberFormat>();
function nf(opts: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = JSON.stringify(opts);
  let f = cache.get(key);
  if (!f) {
    f = new Intl.NumberFormat('en-US', opts);
    cache.set(key, f);
  }
  return f;
}

const SUFFIX = ['', 'K', 'M', 'B', 'T'];

/**
 * Labels for ticks that are multiples of `step`: thousands separators and the decimals of the step;
 * from a largest |tick| of 1e6 on, one unit suffix for the whole axis (K, M, B, T: "0.5M", "1.0M");
 * below 1e-4, one power of ten for the whole axis ("2.5×10^-9").
 */
export function tickLabels(ticks: readonly number[], step: number): string[] {
  const max = Math.max(...ticks.map(Math.abs));
  if (max >= 1e6 && max < 1e15) {
    const g = Math.min(4, Math.floor(Math.log10(max) / 3));
    const u = 10 ** (3 * g);
    const d = stepDecimals(step / u);
    const f = nf({ minimumFractionDigits: d, maximumFractionDigits: d });
    return ticks.map((v) => (v === 0 ? '0' : `${f.format(v / u)}${SUFFIX[g]}`));
  }
  if (max > 0 && max < 1e-4) {
    const k = Math.floor(Math.log10(max));
    const d = stepDecimals(step / 10 ** k);
    return ticks.map((v) => (v === 0 ? '0' : `${(v / 10 ** k).toFixed(d)}×10^${k}`));
  }
  const d = stepDecimals(step);
  const f = nf({ minimumFractionDigits: d, maximumFractionDigits: d });
  return ticks.map((v) => (v === 0 ? '0' : f.format(v)));
}

/** Parses a label of {@link tickLabels} back to its number (for checks). */
export function parseTickLabel(label: string): number {
  const m = /^(-?[\d,]*\.?\d+)(?:([KMBT])|×10\^(-?\d+))?$/.exec(label.replace(/\u2212/g, '-'));
  if (!m) return NaN;
  const base = Number(m[1]!.replace(/,/g, ''));
  if (m[2]) return base * 10 ** (3 * SUFFIX.indexOf(m[2]));
  if (m[3]) return base * 10 ** Number(m[3]);
  return base;
}

/**
 * A number for people: 4 significant digits with thousands separators (12,345.7 → "12,346";
 * 0.012345 → "0.01235"), integers below 1e9 in full ("169,600"), scientific notation below 1e-4
 * and from 1e9 on ("5.183e9", short enough for a table cell); NaN, null and undefined as "—".
 */
export function formatNumber(x: number | null | undefined, digits = 4): string {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '-∞';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (Number.isInteger(x) && a < 1e9) return nf({ maximumFractionDigits: 0 }).format(x);
  if (a < 1e-4 || a >= 1e9) return x.toExponential(digits - 1).replace(/\.?0+e/, 'e').replace('e+', 'e');
  return nf({ maximumSignificantDigits: Math.max(digits, Math.ceil(Math.log10(a + 1))) }).format(x);
}

/** A percentage with 2 significant digits ("3.4%", "120%", "<0.1%"). */
export function formatPercent(fraction: number): string {
  if (!Number.isFinite(fraction)) return '—';
  const p = 100 * fraction;
  if (p > 0 && p < 0.1) return '<0.1%';
  return `${nf({ maximumSignificantDigits: 2 }).format(p)}%`;
}
