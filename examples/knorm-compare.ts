/**
 * Example 2.10 / 3.20 / 3.22 of Awan & Slavkovic (2021), computed: the sensitivity space of
 * T(X) = (sum x_i, 2 sum x_i^2), x_i in [-1, 1], its convex hull, the exact l1/l2/linf
 * sensitivities, the volumes of the scaled balls, their containment, and the recommendation; then a
 * release with the recommended (hull) mechanism, using the exact hull K2.
 *
 *   npx tsx examples/knorm-compare.ts
 */
import { compareKNorms, kNormMechanism } from '../src/mechanisms/knorm/index.js';
import { cryptoRng } from '../src/random/rng.js';
import { markdownTable } from './knorm-report.js';

// The sensitivity space {(x1 - x2, 2 x1^2 - 2 x2^2)} on a fine grid of record pairs.
const steps = 400;
const points: number[][] = [];
for (let i = 0; i <= steps; i++)
  for (let j = 0; j <= steps; j++) {
    const a = -1 + (2 * i) / steps;
    const b = -1 + (2 * j) / steps;
    points.push([a - b, 2 * a * a - 2 * b * b]);
  }
const c = await compareKNorms(points);
console.log(markdownTable(['norm', 'sensitivity', 'volume of Delta K', 'entropy at eps = 1'], c.candidates.map((r) => [r.name, r.sensitivity, r.volume, r.entropyAtEps1])));
console.log('\ncontainment (row inside column):');
console.log(markdownTable(['', ...c.candidates.map((r) => r.name)], c.candidates.map((r, i) => [r.name, ...c.containment[i]!.map((v) => String(v))])));
console.log(`\nvolume order: ${c.volumeOrder.join(' < ')}`);
console.log(`recommendation: ${c.recommendation} (${c.reason})`);
console.log(`hull: ${c.hull!.vertices!.length} vertices`);

// A release of T(X) for 100 records with the optimal mechanism. The hull of the GRID points above is
// an inner approximation of the true hull (a release with it at Delta = 1 would under-state the
// sensitivity slightly), so the release uses the exact hull K2 of Section 5.1 (proof in
// src/models/functional-linear.ts), whose sensitivity is exactly 1.
const K2 = {
  membership: (u: ArrayLike<number>) => {
    const a = Math.abs(u[0]!);
    const b = Math.abs(u[1]!);
    return a <= 2 && b <= 2 && (a <= 1 || b <= 2 - 2 * (a - 1) ** 2);
  },
  box: [[-2, -2], [2, 2]] as [number[], number[]],
  volume: 40 / 3,
};
const rng = cryptoRng();
const data = Array.from({ length: 100 }, () => 2 * rng.nextDouble() - 1);
const T = [data.reduce((s, x) => s + x, 0), data.reduce((s, x) => s + 2 * x * x, 0)];
const r = kNormMechanism(T, 1, { norm: K2, sensitivity: 1, details: true });
console.log(`\nT = ${T.map((v) => v.toFixed(3))}, released ${r.value.map((v) => v.toFixed(3))} (eps = 1, acceptance ${r.acceptance!.rate.toFixed(3)})`);
