/**
 * The bundled data sets as numeric matrices for the model tests.
 *
 * Adult (UCI, Becker & Kohavi 1996): the five numeric attributes with public bounds taken from the
 * data set's documentation, not from the data: age in [17, 90] (the extraction kept ages > 16, and
 * the CPS top-codes age at 90), education_num in [1, 16] (16 education levels), capital_gain in
 * [0, 99999] and capital_loss in [0, 99999] (CPS top-code 99999), hours_per_week in [1, 99] (CPS
 * top-code 99). Label: income >50K -> 1.
 *
 * California Housing (Pace & Barry 1997): median_income (in $10k, top-coded at 15.0001, bound
 * [0, 16]), housing_median_age (top-coded at 52, [0, 52]), and the target median_house_value
 * (top-coded at 500001, [0, 500001]).
 */
import { seededRng } from '../../src/random/rng.js';
import { readCsv } from './csv.js';

export const ADULT_LOWER = [17, 1, 0, 0, 1];
export const ADULT_UPPER = [90, 16, 99999, 99999, 99];

export function loadAdult(): { X: number[][]; y: number[] } {
  const { header, rows } = readCsv('adult.csv');
  const cols = ['age', 'education_num', 'capital_gain', 'capital_loss', 'hours_per_week'].map((c) => header.indexOf(c));
  const label = header.indexOf('income');
  const X: number[][] = [];
  const y: number[] = [];
  for (const r of rows) {
    X.push(cols.map((c) => Number(r[c])));
    y.push(r[label] === '>50K' ? 1 : 0);
  }
  return { X, y };
}

export function loadHousing(): { X: number[][]; y: number[] } {
  const { header, rows } = readCsv('california_housing.csv');
  const inc = header.indexOf('median_income');
  const age = header.indexOf('housing_median_age');
  const val = header.indexOf('median_house_value');
  const X: number[][] = [];
  const y: number[] = [];
  for (const r of rows) {
    X.push([Number(r[inc]), Number(r[age])]);
    y.push(Number(r[val]));
  }
  return { X, y };
}

/** A seeded split into train (1 - testFraction) and test rows. */
export function split<T>(X: T[], y: number[], testFraction: number, seed: number): { Xtr: T[]; ytr: number[]; Xte: T[]; yte: number[] } {
  const rng = seededRng(seed);
  const idx = X.map((_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = Math.floor(rng.nextDouble() * (i + 1));
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  const nTest = Math.floor(X.length * testFraction);
  const te = idx.slice(0, nTest);
  const tr = idx.slice(nTest);
  return { Xtr: tr.map((i) => X[i]!), ytr: tr.map((i) => y[i]!), Xte: te.map((i) => X[i]!), yte: te.map((i) => y[i]!) };
}

export function accuracy(pred: number[], y: number[]): number {
  let c = 0;
  for (let i = 0; i < y.length; i++) if (pred[i] === y[i]) c++;
  return c / y.length;
}
