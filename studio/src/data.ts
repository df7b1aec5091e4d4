/**
 * The studio's in-memory data set and the SUFFICIENT STATISTICS of its releases, computed in the
 * browser with the same definitions as the CLI's SQL engines (src/node/engine/engine.ts), so a plan
 * gives the same values in the page as with `dpkit run` for the same random stream:
 * - a numeric cell is a decimal number (anything else, and an empty cell, is missing); the column's
 *   missing policy drops it or imputes a public constant; the value is clamped to the public bounds
 *   and mapped to the integer s = round(clamp(x) 10^k) (half away from zero, k = fixedPointScale);
 *   sums of s and s^2 are exact (integer arithmetic in exactly representable chunks, then BigInt),
 *   and the moments are converted once by the engine's own `momentsFromSums`;
 * - histogram bins (a, b] of the clamped value, the first one also holding its lower edge, with
 *   histogramDP's formula for equal-width bins; contingency tables over the public levels only.
 * Every column is dictionary-encoded (codes + distinct strings): the distinct strings never leave
 * the worker; they are only matched against the levels the user declares.
 */
import { fixedPointScale, momentsFromSums, type Moments } from '../../src/node/engine/engine.js';

export type Missing = 'drop' | { impute: number | string };

export interface NumericSpec {
  column: string;
  lower: number;
  upper: number;
  missing: Missing;
}

export interface CategoricalSpec {
  column: string;
  levels: readonly string[];
  missing: Missing;
}

const NUMBER_RE = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

/** A cell read as a number: a decimal literal, else NaN (missing). */
export function cellToNumber(s: string): number {
  return NUMBER_RE.test(s) ? Number(s) : NaN;
}

/** One column: codes into a dictionary of its distinct strings. */
export class Column {
  codes: Int32Array;
  length = 0;
  readonly dict: string[] = [];
  private readonly index = new Map<string, number>();
  private numbers: Float64Array | undefined;

  constructor(capacity = 1024) {
    this.codes = new Int32Array(capacity);
  }

  push(s: string): void {
    let c = this.index.get(s);
    if (c === undefined) {
      c = this.dict.length;
      this.dict.push(s);
      this.index.set(s, c);
    }
    if (this.length === this.codes.length) {
      const grown = new Int32Array(this.codes.length * 2);
      grown.set(this.codes);
      this.codes = grown;
    }
    this.codes[this.length++] = c;
  }

  /** The column read as numbers (NaN where a cell is not a number or empty). */
  numeric(): Float64Array {
    if (!this.numbers) {
      const d = Float64Array.from(this.dict, cellToNumber);
      const out = new Float64Array(this.length);
      const codes = this.codes;
      for (let i = 0; i < out.length; i++) out[i] = d[codes[i]!]!;
      this.numbers = out;
    }
    return this.numbers;
  }

  /** The code of each declared level (-1 for none), and the code mapping to a level index. */
  levelIndex(levels: readonly string[], missing: Missing): Int32Array {
    const pos = new Map(levels.map((l, i) => [l, i]));
    const map = new Int32Array(this.dict.length).fill(-1);
    const imputed = missing === 'drop' ? undefined : pos.get(String(missing.impute));
    this.dict.forEach((s, c) => {
      if (s === '') map[c] = imputed ?? -1;
      else map[c] = pos.get(s) ?? -1;
    });
    return map;
  }
}

export class Dataset {
  readonly columns: Column[];
  rows = 0;

  constructor(readonly names: string[]) {
    this.columns = names.map(() => new Column());
  }

  add(fields: string[]): void {
    const k = this.columns.length;
    for (let j = 0; j < k; j++) this.columns[j]!.push(fields[j] ?? '');
    this.rows++;
  }

  column(name: string): Column {
    const i = this.names.indexOf(name);
    if (i < 0) throw new Error(`column "${name}" is not in the file`);
    return this.columns[i]!;
  }

  /** The cleaned values (missing policy applied; NaN = not used) of a numeric request. */
  private cleaned(q: NumericSpec): Float64Array {
    const x = this.column(q.column).numeric();
    if (q.missing === 'drop') return x;
    const v = Number(q.missing.impute);
    const out = new Float64Array(x.length);
    for (let i = 0; i < x.length; i++) out[i] = Number.isNaN(x[i]!) ? v : x[i]!;
    return out;
  }

  /** The clamped values of a column (NaN where not used). */
  clamped(q: NumericSpec): Float64Array {
    const x = this.cleaned(q);
    const out = new Float64Array(x.length);
    const { lower: l, upper: u } = q;
    for (let i = 0; i < x.length; i++) {
      const v = x[i]!;
      out[i] = Number.isNaN(v) ? NaN : v < l ? l : v > u ? u : v;
    }
    return out;
  }

  /** Exact clamped moments (see the file comment), optionally restricted to rows where `keep` is set. */
  moments(q: NumericSpec, keep?: (i: number) => boolean): Moments {
    const c = this.clamped(q);
    const k = fixedPointScale(q.lower, q.upper);
    return exactMoments(c, k, keep);
  }

  /** Per public level of `g`: the exact clamped moments of `q` (rows of undeclared levels unused). */
  groupedMoments(g: CategoricalSpec, q: NumericSpec): Moments[] {
    const col = this.column(g.column);
    const map = col.levelIndex(g.levels, g.missing);
    const c = this.clamped(q);
    const k = fixedPointScale(q.lower, q.upper);
    return g.levels.map((_, j) => exactMoments(c, k, (i) => map[col.codes[i]!] === j));
  }

  /** Histogram counts of the clamped values (bins (a, b], the first with its lower edge). */
  histogram(q: NumericSpec, edges: readonly number[], uniform: boolean): number[] {
    const c = this.clamped(q);
    const K = edges.length - 1;
    const out = new Array<number>(K).fill(0);
    const l = edges[0]!;
    const scale = K / (edges[K]! - l);
    for (let i = 0; i < c.length; i++) {
      const v = c[i]!;
      if (Number.isNaN(v)) continue;
      let b: number;
      if (K === 1) b = 0;
      else if (uniform) b = Math.min(Math.max(Math.ceil((v - l) * scale) - 1, 0), K - 1);
      else {
        b = K - 1;
        for (let j = 1; j < K; j++) {
          if (v <= edges[j]!) {
            b = j - 1;
            break;
          }
        }
      }
      out[b]!++;
    }
    return out;
  }

  /** Contingency counts over the cross product of the public levels (row-major). */
  table(cols: readonly CategoricalSpec[]): number[] {
    const maps = cols.map((g) => this.column(g.column).levelIndex(g.levels, g.missing));
    const codes = cols.map((g) => this.column(g.column).codes);
    const dims = cols.map((g) => g.levels.length);
    const out = new Array<number>(dims.reduce((a, b) => a * b, 1)).fill(0);
    outer: for (let i = 0; i < this.rows; i++) {
      let cell = 0;
      for (let j = 0; j < cols.length; j++) {
        const v = maps[j]![codes[j]![i]!]!;
        if (v < 0) continue outer;
        cell = cell * dims[j]! + v;
      }
      out[cell]!++;
    }
    return out;
  }

  /**
   * Rows of clamped numeric columns (rows where every column is used), one Float64Array per column,
   * in the engine's canonical order (sorted by all columns), so an iterative fit gives the same
   * floating-point result as the CLI's.
   */
  numericColumns(reqs: readonly NumericSpec[]): Float64Array[] {
    const cols = reqs.map((q) => this.clamped(q));
    const keep: number[] = [];
    for (let i = 0; i < this.rows; i++) if (cols.every((c) => !Number.isNaN(c[i]!))) keep.push(i);
    return sortRows(cols, keep);
  }

  /** The rows of {@link numericColumns} with a categorical label as 0/1 (1 for `positive`; rows with a missing label dropped), same canonical order. */
  rowsWithLabel(reqs: readonly NumericSpec[], label: { column: string; positive: string; missing: Missing }): { x: Float64Array[]; y: Float64Array } {
    const cols = reqs.map((q) => this.clamped(q));
    const lab = this.column(label.column);
    const yOf = new Float64Array(lab.dict.length);
    const hasLabel = lab.dict.map((s) => s !== '' || label.missing !== 'drop');
    lab.dict.forEach((s, c) => {
      const v = s === '' && label.missing !== 'drop' ? String(label.missing.impute) : s;
      yOf[c] = v === label.positive ? 1 : 0;
    });
    const y = new Float64Array(this.rows);
    const keep: number[] = [];
    for (let i = 0; i < this.rows; i++) {
      const code = lab.codes[i]!;
      y[i] = yOf[code]!;
      if (hasLabel[code] && cols.every((c) => !Number.isNaN(c[i]!))) keep.push(i);
    }
    const out = sortRows([...cols, y], keep);
    return { x: out.slice(0, reqs.length), y: out[reqs.length]! };
  }

  /** The used clamped values, sorted ascending. */
  sortedValues(q: NumericSpec): Float64Array {
    const c = this.clamped(q);
    let n = 0;
    for (let i = 0; i < c.length; i++) if (!Number.isNaN(c[i]!)) c[n++] = c[i]!;
    return c.slice(0, n).sort();
  }
}

/** The kept rows of the columns, sorted lexicographically by all columns (ORDER BY c0, c1, ...). */
function sortRows(cols: readonly Float64Array[], keep: number[]): Float64Array[] {
  keep.sort((a, b) => {
    for (const c of cols) {
      const d = c[a]! - c[b]!;
      if (d !== 0) return d;
    }
    return 0;
  });
  return cols.map((c) => Float64Array.from(keep, (i) => c[i]!));
}

/** round half away from zero (SQL round on a double). */
function roundHalfAway(v: number): number {
  return v < 0 ? -Math.round(-v) : Math.round(v);
}

/**
 * n, S = sum s and SS = sum s^2 of s = round(c 10^k) over the used values, exactly: s = h 2^16 + l
 * (0 <= l < 2^16), s^2 = h^2 2^32 + 2 h l 2^16 + l^2, and each of sum h, sum l, sum h^2, sum h l,
 * sum l^2 is accumulated in doubles over chunks short enough to stay below 2^53 (exact), then
 * added as BigInt.
 */
function exactMoments(c: Float64Array, k: number, keep?: (i: number) => boolean): Moments {
  const p = 10 ** k;
  let maxAbs = 0;
  for (let i = 0; i < c.length; i++) {
    const v = Math.abs(c[i]!);
    if (v > maxAbs) maxAbs = v;
  }
  const hMax = Math.ceil((maxAbs * p + 1) / 65536) + 1;
  const term = Math.max(hMax * hMax, hMax * 65536, 65536 * 65536);
  const chunk = Math.max(1, Math.floor(2 ** 52 / term));
  let n = 0;
  let S = 0n;
  let H2 = 0n;
  let HL = 0n;
  let L2 = 0n;
  let sh = 0;
  let sl = 0;
  let shh = 0;
  let shl = 0;
  let sll = 0;
  let inChunk = 0;
  const flush = () => {
    S += BigInt(sh) * 65536n + BigInt(sl);
    H2 += BigInt(shh);
    HL += BigInt(shl);
    L2 += BigInt(sll);
    sh = sl = shh = shl = sll = 0;
    inChunk = 0;
  };
  for (let i = 0; i < c.length; i++) {
    const v = c[i]!;
    if (Number.isNaN(v) || (keep && !keep(i))) continue;
    const s = roundHalfAway(v * p);
    const h = Math.floor(s / 65536);
    const l = s - h * 65536;
    sh += h;
    sl += l;
    shh += h * h;
    shl += h * l;
    sll += l * l;
    n++;
    if (++inChunk >= chunk) flush();
  }
  flush();
  const SS = (H2 << 32n) + ((2n * HL) << 16n) + L2;
  return momentsFromSums(n, S, SS, k);
}
