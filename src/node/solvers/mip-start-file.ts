/**
 * MIP start files for COIN-OR CBC (`cbc model.mps -mipstart start.txt -solve`).
 *
 * CBC's reader (CbcMipStartIO.cpp, readMIPStart) takes every line whose first token is numeric and
 * that has at least three tokens as "index name value", matches the NAME against the model's column
 * names (./mps.ts writes C0, C1, ...), and ignores all other lines (a header such as CBC's own
 * "Optimal - objective value ..." line). The value token must consist of digits, '.', '-', '+' and
 * 'e' only, so values are written as String(v) (shortest round-trip decimal, lower-case exponent).
 * CBC fixes the integer columns at the given values, solves the LP over the rest and, when that is
 * feasible, uses the point as its first incumbent ("MIPStart provided solution with cost ..."); an
 * infeasible start is dropped with a warning. A start is only a hint: it can change the running
 * time, never what CBC proves.
 */
import { InvalidArgumentError } from '../../errors.js';

/** The text of a start file giving every column's value (one line per column, C<j> names). */
export function formatMipStart(x: ArrayLike<number>): string {
  if (typeof x !== 'object' || x === null || typeof x.length !== 'number') throw new InvalidArgumentError('start', 'must be an array of numbers', x);
  const lines = ['Feasible - objective value 0'];
  for (let j = 0; j < x.length; j++) {
    const v = x[j];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidArgumentError(`start[${j}]`, 'must be a finite number', v);
    lines.push(`${j} C${j} ${v === 0 ? 0 : String(v)}`);
  }
  return lines.join('\n') + '\n';
}

/**
 * Read a start file as CBC does (lines "index name value" with a numeric first token; other lines
 * ignored) into a vector of numCols values; names must be C<j> with j < numCols; a column given
 * twice or not at all, or a malformed value, is an error (CBC would silently use 0 or the last value).
 */
export function parseMipStart(text: string, numCols: number): Float64Array {
  if (typeof text !== 'string') throw new InvalidArgumentError('text', 'must be a string', text);
  if (!(Number.isInteger(numCols) && numCols >= 0)) throw new InvalidArgumentError('numCols', 'must be an integer >= 0', numCols);
  const x = new Float64Array(numCols).fill(NaN);
  const lines = text.split(/\r?\n/);
  for (let l = 0; l < lines.length; l++) {
    const t = lines[l]!.trim().split(/\s+/);
    if (t.length < 3 || !/^[0-9]/.test(t[0]!)) continue;
    const m = /^C(\d+)$/.exec(t[1]!);
    if (!m || Number(m[1]) >= numCols) throw new InvalidArgumentError(`line ${l + 1}`, `must name a column C0..C${numCols - 1}`, t[1]);
    if (!/^[-+0-9.e]+$/.test(t[2]!) || !Number.isFinite(Number(t[2]))) throw new InvalidArgumentError(`line ${l + 1}`, 'must give a finite decimal value (digits, ., -, +, e)', t[2]);
    const j = Number(m[1]);
    if (!Number.isNaN(x[j]!)) throw new InvalidArgumentError(`line ${l + 1}`, `gives column C${j} a second time`, t[1]);
    x[j] = Number(t[2]);
  }
  for (let j = 0; j < numCols; j++) if (Number.isNaN(x[j]!)) throw new InvalidArgumentError('text', `gives no value for column C${j}`);
  return x;
}
