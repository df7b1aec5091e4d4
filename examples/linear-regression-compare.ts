/**
 * Private linear regression on the bundled California Housing data (data/): KST objective
 * perturbation (LinearRegressionDP, default) against AdaSSP sufficient-statistics perturbation
 * (LinearRegressionDP({ method: 'adassp' }), Wang 2018), at eps = 0.5, 1, 2 with delta = 1e-5,
 * over 20 seeds of the mechanism on one fixed 80/20 train/test split.
 *
 * Response: log(median_house_value). Predictors (p = 6, as examples/knorm-housing.ts): longitude,
 * latitude, housing_median_age, median_income, log(rooms per household), log(persons per household),
 * with PUBLIC bounds fixed in advance (California's extent, the census top-codes, generous ratio
 * bounds); both methods clip to them. Metrics: coefficient error = l2 distance to the non-private
 * least-squares fit on the same clipped training data, in the parametrisation where every predictor
 * (and the response) is centred at the middle of its bounds and divided by its half-range; test MSE of
 * log(value) on the held-out 20%.
 *
 *   npx tsx examples/linear-regression-compare.ts
 *
 * Writes docs/research/linear-regression-results.md (seeded: reproducible).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { solveSpd } from '../src/math/linalg.js';
import { LinearRegressionDP } from '../src/models/linear.js';
import { seededRng } from '../src/random/rng.js';

const here = dirname(fileURLToPath(import.meta.url));
const lines = readFileSync(join(here, '..', 'data', 'california_housing.csv'), 'utf8').trim().split(/\r?\n/);
const header = lines[0]!.split(',');
const col = (name: string) => header.indexOf(name);
const log = Math.log;
const predictors: { name: string; f: (c: number[]) => number; lo: number; hi: number }[] = [
  { name: 'longitude', f: (c) => c[col('longitude')]!, lo: -124.5, hi: -114 },
  { name: 'latitude', f: (c) => c[col('latitude')]!, lo: 32.5, hi: 42 },
  { name: 'housing_median_age', f: (c) => c[col('housing_median_age')]!, lo: 0, hi: 52 },
  { name: 'median_income', f: (c) => c[col('median_income')]!, lo: 0, hi: 15.0001 },
  { name: 'log(rooms per household)', f: (c) => log(c[col('total_rooms')]! / c[col('households')]!), lo: 0, hi: log(16) },
  { name: 'log(persons per household)', f: (c) => log(c[col('population')]! / c[col('households')]!), lo: log(0.5), hi: log(8) },
];
const yLo = log(14999);
const yHi = log(500001);
const lower = [...predictors.map((p) => p.lo), yLo];
const upper = [...predictors.map((p) => p.hi), yHi];

const rows: number[][] = [];
const ys: number[] = [];
for (let r = 1; r < lines.length; r++) {
  const raw = lines[r]!.split(',');
  const cells = raw.map(Number);
  if (raw.some((c) => c === '') || !cells.every(Number.isFinite)) continue;
  rows.push(predictors.map((p) => p.f(cells)));
  ys.push(log(cells[col('median_house_value')]!));
}
// One fixed 80/20 split (seeded Fisher-Yates).
const order = rows.map((_, i) => i);
const split = seededRng('housing-split');
for (let i = order.length - 1; i > 0; i--) {
  const j = Math.floor(split.nextDouble() * (i + 1));
  [order[i], order[j]] = [order[j]!, order[i]!];
}
const nTrain = Math.floor(0.8 * order.length);
const Xtr = order.slice(0, nTrain).map((i) => rows[i]!);
const ytr = order.slice(0, nTrain).map((i) => ys[i]!);
const Xte = order.slice(nTrain).map((i) => rows[i]!);
const yte = order.slice(nTrain).map((i) => ys[i]!);
const p = predictors.length;
const clip = (v: number, lo: number, hi: number) => (v < lo ? lo : v > hi ? hi : v);

// Non-private least squares on the clipped training data (intercept first).
const d = p + 1;
const G = new Float64Array(d * d);
const b = new Float64Array(d);
Xtr.forEach((r, i) => {
  const x = [1, ...r.map((v, j) => clip(v, predictors[j]!.lo, predictors[j]!.hi))];
  const yv = clip(ytr[i]!, yLo, yHi);
  for (let a = 0; a < d; a++) {
    b[a] = b[a]! + x[a]! * yv;
    for (let c = 0; c < d; c++) G[a * d + c] = G[a * d + c]! + x[a]! * x[c]!;
  }
});
const ols = Array.from(solveSpd(G, d, b));

const half = predictors.map((q) => (q.hi - q.lo) / 2);
const mid = predictors.map((q) => (q.hi + q.lo) / 2);
const hy = (yHi - yLo) / 2;
/** Coefficients in the centred, half-range-scaled parametrisation (intercept at the centre, slopes per half-range), in units of hy. */
const centred = (c: number[]) => [c[0]! + mid.reduce((s, m, j) => s + c[j + 1]! * m, 0), ...c.slice(1).map((v, j) => v * half[j]!)].map((v) => v / hy);
const coefError = (c: number[]) => {
  const a = centred(c);
  const o = centred(ols);
  return Math.hypot(...a.map((v, j) => v - o[j]!));
};
const testMse = (c: number[]) => {
  let s = 0;
  Xte.forEach((r, i) => {
    let pred = c[0]!;
    r.forEach((v, j) => (pred += c[j + 1]! * clip(v, predictors[j]!.lo, predictors[j]!.hi)));
    s += (pred - yte[i]!) ** 2;
  });
  return s / Xte.length;
};
const meanY = ytr.reduce((s, v) => s + v, 0) / ytr.length;
const constMse = yte.reduce((s, v) => s + (v - meanY) ** 2, 0) / yte.length;

const seeds = 20;
const delta = 1e-5;
const methods = [
  { label: 'KST (gamma = 1)', make: (eps: number) => new LinearRegressionDP({ eps, delta, gamma: 1 }) },
  { label: 'AdaSSP', make: (eps: number) => new LinearRegressionDP({ method: 'adassp', eps, delta }) },
];
const out: string[] = [];
const stat = (xs: number[]) => {
  const s = xs.slice().sort((u, v) => u - v);
  return { mean: xs.reduce((u, v) => u + v, 0) / xs.length, median: s[s.length >> 1]!, worst: s[s.length - 1]! };
};
out.push('| eps | method | coefficient error: mean | median | worst | test MSE: mean | median | worst | fit time (ms, mean) |');
out.push('|---:|---|---:|---:|---:|---:|---:|---:|---:|');
for (const eps of [0.5, 1, 2]) {
  for (const m of methods) {
    const errs: number[] = [];
    const mses: number[] = [];
    let ms = 0;
    for (let s = 0; s < seeds; s++) {
      const t0 = performance.now();
      const model = m.make(eps).fit(Xtr, ytr, { lower, upper, addBias: true, rng: seededRng(`lr-${eps}-${s}`), accountant: null });
      ms += performance.now() - t0;
      errs.push(coefError(model.coeff!));
      mses.push(testMse(model.coeff!));
    }
    const e = stat(errs);
    const q = stat(mses);
    out.push(`| ${eps} | ${m.label} | ${e.mean.toFixed(3)} | ${e.median.toFixed(3)} | ${e.worst.toFixed(3)} | ${q.mean.toFixed(4)} | ${q.median.toFixed(4)} | ${q.worst.toFixed(4)} | ${(ms / seeds).toFixed(1)} |`);
    console.log(out[out.length - 1]);
  }
}
const doc = `# Private linear regression on California Housing: KST vs AdaSSP

Generated by \`npx tsx examples/linear-regression-compare.ts\` (seeded; ${new Date().toISOString().slice(0, 10)}).
Write-up: [linear-regression.md](linear-regression.md).

n = ${rows.length} rows, fixed 80/20 split (train ${Xtr.length}, test ${Xte.length}); response log(median_house_value);
p = ${p} predictors with public bounds (${predictors.map((q) => q.name).join(', ')}); intercept; delta = ${delta};
${seeds} seeds of the mechanism per cell. Coefficient error: l2 distance to non-private least squares on the clipped
training data, every predictor and the response centred at the middle of their bounds and divided by their half-ranges.

Reference: non-private least squares test MSE ${testMse(ols).toFixed(4)}; predicting the training mean ${constMse.toFixed(4)}.

${out.join('\n')}
`;
writeFileSync(join(here, '..', 'docs', 'research', 'linear-regression-results.md'), doc);
console.log(`OLS test MSE ${testMse(ols).toFixed(4)}, constant ${constMse.toFixed(4)}`);
