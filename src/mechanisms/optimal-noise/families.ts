/**
 * Shift families (privacy constraints) in floating point for the LP: for source grid a (variables
 * srcBase + j) against target grid b (variables tgtBase + m) shifted by phi, one term per overlap
 * piece (see engine.ts). Uniform grids with the same width use the closed form: for
 * phi = (k + theta) beta the first theta of cell j meets target cell j - k - 1 and the rest cell j - k,
 * so V(phi) = theta V(k + 1) + (1 - theta) V(k) (Selvi, Liu & Wiesemann: V is piecewise linear between the integer shifts of a uniform grid).
 */
import type { ShiftFamily } from './engine.js';
import type { NoiseGrid } from './grid.js';

export function shiftFamily(a: NoiseGrid, b: NoiseGrid, phi: number, E: number, srcBase: number, tgtBase: number, from: number, to: number): ShiftFamily {
  if (a.beta !== null && b.beta !== null && a.beta === b.beta) {
    const beta = a.beta;
    // target index of the piece at the start of source cell j: floor((a.edges[j] - phi - b.edges[0]) / beta)
    const rel = (a.edges[0]! - phi - b.edges[0]!) / beta; // m = j + rel (fractional)
    const fl = Math.floor(rel + 1e-9);
    let theta = rel - fl; // fraction of cell j that meets target cell j + fl; the rest meets j + fl + 1
    if (theta < 1e-9) theta = 0;
    // piece [e_j, e_j + (1-theta) beta) -> target j + fl ; piece of length theta beta -> target j + fl + 1
    const wFirst = theta === 0 ? 1 : 1 - theta;
    const n = a.n;
    const parts = theta === 0 ? 1 : 2;
    const src = new Int32Array(n * parts);
    const tgt = new Int32Array(n * parts);
    const cs = new Float64Array(n * parts);
    const ct = new Float64Array(n * parts);
    let q = 0;
    for (let j = 0; j < n; j++) {
      const m1 = j + fl;
      src[q] = srcBase + j;
      tgt[q] = m1 >= 0 && m1 < b.n ? tgtBase + m1 : -1;
      cs[q] = wFirst;
      ct[q] = E * wFirst;
      q++;
      if (parts === 2) {
        const m2 = m1 + 1;
        src[q] = srcBase + j;
        tgt[q] = m2 >= 0 && m2 < b.n ? tgtBase + m2 : -1;
        cs[q] = theta;
        ct[q] = E * theta;
        q++;
      }
    }
    return { phi, from, to, terms: { src, tgt, cs, ct } };
  }
  // General grids: merge the breakpoints of a and of b + phi.
  const pts: number[] = Array.from(a.edges);
  const lo = a.edges[0]!;
  const hi = a.edges[a.n]!;
  for (let i = 0; i <= b.n; i++) {
    const x = b.edges[i]! + phi;
    if (x > lo && x < hi) pts.push(x);
  }
  pts.sort((x, y) => x - y);
  const acc = new Map<number, { j: number; m: number; len: number }>();
  for (let i = 0; i + 1 < pts.length; i++) {
    const x0 = pts[i]!;
    const x1 = pts[i + 1]!;
    const len = x1 - x0;
    if (!(len > 1e-15 * Math.max(1, Math.abs(x0)))) continue;
    const mid = 0.5 * (x0 + x1);
    const j = a.cellOf(mid);
    if (j < 0) continue;
    const m = b.cellOf(mid - phi);
    const key = j * (b.n + 1) + (m + 1);
    const cur = acc.get(key);
    if (cur) cur.len += len;
    else acc.set(key, { j, m, len });
  }
  const k = acc.size;
  const src = new Int32Array(k);
  const tgt = new Int32Array(k);
  const cs = new Float64Array(k);
  const ct = new Float64Array(k);
  let q = 0;
  for (const { j, m, len } of acc.values()) {
    src[q] = srcBase + j;
    tgt[q] = m >= 0 ? tgtBase + m : -1;
    cs[q] = len / a.widths[j]!;
    ct[q] = m >= 0 ? (E * len) / b.widths[m]! : 0;
    q++;
  }
  return { phi, from, to, terms: { src, tgt, cs, ct } };
}

/**
 * Float candidate shifts in [lo, hi] (lo < hi): grid differences (multiples of beta for uniform grids
 * with aligned origins) plus lo and hi themselves.
 */
export function floatShifts(a: NoiseGrid, b: NoiseGrid, lo: number, hi: number): number[] {
  const out: number[] = [lo, hi];
  if (a.beta !== null && b.beta !== null && a.beta === b.beta) {
    const beta = a.beta;
    const off = (a.edges[0]! - b.edges[0]!) / beta;
    if (Math.abs(off - Math.round(off)) < 1e-9) {
      for (let k = Math.ceil(lo / beta - 1e-9); k * beta <= hi * (1 + 1e-12) + 1e-12; k++) out.push(k * beta);
      return dedupe(out, lo, hi, beta * 1e-9);
    }
  }
  for (let i = 0; i <= a.n; i++) for (let m = 0; m <= b.n; m++) out.push(a.edges[i]! - b.edges[m]!);
  let minW = Infinity;
  for (const w of a.widths) minW = Math.min(minW, w);
  return dedupe(out, lo, hi, minW * 1e-9);
}

function dedupe(xs: number[], lo: number, hi: number, tol: number): number[] {
  const s = xs.filter((x) => x >= lo - tol && x <= hi + tol).sort((x, y) => x - y);
  const out: number[] = [];
  for (const x of s) {
    const c = Math.min(hi, Math.max(lo, x));
    if (out.length === 0 || c - out[out.length - 1]! > tol) out.push(c);
  }
  return out;
}

/**
 * Re-express a family over reduced variables (cell j -> variable varOf[j], e.g. mirrored cells of a
 * symmetric distribution share a variable). Terms with the same (src, tgt) are merged: they have the
 * same ratio ct/cs, hence the same sign, so max(0, u1) + max(0, u2) = max(0, u1 + u2).
 */
export function mapFamily(f: ShiftFamily, varOf: Int32Array): ShiftFamily {
  const { src, tgt, cs, ct } = f.terms;
  const acc = new Map<number, number>();
  const S: number[] = [];
  const T: number[] = [];
  const CS: number[] = [];
  const CT: number[] = [];
  const nv = varOf.length + 1;
  for (let i = 0; i < src.length; i++) {
    const a = varOf[src[i]!]!;
    const b = tgt[i]! < 0 ? -1 : varOf[tgt[i]!]!;
    const key = a * nv + (b + 1);
    const at = acc.get(key);
    if (at === undefined) {
      acc.set(key, S.length);
      S.push(a);
      T.push(b);
      CS.push(cs[i]!);
      CT.push(ct[i]!);
    } else {
      CS[at]! += cs[i]!;
      CT[at]! += ct[i]!;
    }
  }
  return { phi: f.phi, from: f.from, to: f.to, terms: { src: Int32Array.from(S), tgt: Int32Array.from(T), cs: Float64Array.from(CS), ct: Float64Array.from(CT) } };
}
