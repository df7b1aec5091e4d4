/**
 * Awan & Slavkovic (2021), Algorithm 4: private linear regression by the K-norm functional mechanism
 * (l1, l-infinity and the optimal K of Section 5.1); the fraction of the p slope coefficients of the
 * private estimate inside the non-private 95% confidence intervals.
 * p = 5, n = 1e4, beta = (0, -1.5, -0.75, 0, 0.75, 1.5), X_ij ~ U[-1, 1], Y ~ N(X beta, 1).
 *
 * The mechanism needs Y in [-1, 1]: Y is divided by the public bound B = 5.5 (|X beta| <= 4.5 plus
 * about 3 noise sd) and truncated to [-1, 1] (the paper's Algorithm 4 does not say how it bounded Y);
 * coefficients are multiplied back by B, and the non-private OLS intervals are computed on the same
 * truncated data, so both estimates see the same data.
 *
 *   npx tsx examples/knorm-linear-sim.ts [replicates = 200] [n = 10000]
 *
 * Writes docs/research/knorm-linear-results.md and docs/research/knorm-linear.svg (suffix -n<n> when n != 1e4; seeded).
 */
import { symmetricPinv } from '../src/math/symmetric-eigen.js';
import { functionalRegressionBody, functionalRegressionCoefficients, functionalStatistic, perturbFunctionalStatistic, type FunctionalNorm } from '../src/models/functional-linear.js';
import type { RejectionStats } from '../src/mechanisms/knorm/sample.js';
import { sampleNormal } from '../src/random/continuous.js';
import { seededRng } from '../src/random/rng.js';
import { epsToReach, markdownTable, svgPlot, writeDoc } from './knorm-report.js';

const replicates = Number(process.argv[2] ?? 200);
const n = Number(process.argv[3] ?? 10_000);
const p = 5;
const beta = [0, -1.5, -0.75, 0, 0.75, 1.5];
const B = 5.5;
const epsGrid = [1 / 16, 1 / 8, 1 / 4, 1 / 2, 1, 2, 4];
const methods: { name: string; norm: FunctionalNorm }[] = [
  { name: 'l1', norm: 'l1' },
  { name: 'linf', norm: 'linf' },
  { name: 'optimal K', norm: 'optimal' },
];
const z975 = 1.959963984540054;
const suffix = n === 10_000 ? '' : `-n${n}`;
const body = functionalRegressionBody(p);
const stats: RejectionStats = { proposals: 0, accepted: 0 };

const t0 = performance.now();
const cover = methods.map(() => epsGrid.map(() => 0));
let trueCover = 0;
let truncated = 0;
for (let r = 0; r < replicates; r++) {
  const rng = seededRng(`alg4-data-${r}`);
  const x = new Float64Array(n * p);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let mu = beta[0]!;
    for (let j = 0; j < p; j++) {
      const v = 2 * rng.nextDouble() - 1;
      x[i * p + j] = v;
      mu += v * beta[j + 1]!;
    }
    const yy = (mu + sampleNormal(rng)) / B;
    if (Math.abs(yy) > 1) truncated++;
    y[i] = Math.max(-1, Math.min(1, yy));
  }
  const T = functionalStatistic(x, y, n, p);
  const ols = functionalRegressionCoefficients(T, n, p); // in units of Y / B
  // Non-private OLS intervals (original units): se_j = sqrt(s^2 [(X^T X)^-1]_jj).
  const k = p + 1;
  const xtx = new Float64Array(k * k);
  let rss = 0;
  for (let i = 0; i < n; i++) {
    let fit = ols[0]!;
    for (let j = 0; j < p; j++) fit += ols[j + 1]! * x[i * p + j]!;
    rss += (y[i]! - fit) ** 2;
    for (let a = 0; a < k; a++) {
      const va = a === 0 ? 1 : x[i * p + a - 1]!;
      for (let b = 0; b < k; b++) xtx[a * k + b]! += va * (b === 0 ? 1 : x[i * p + b - 1]!);
    }
  }
  const inv = symmetricPinv(xtx, k);
  const s2 = (rss / (n - k)) * B * B;
  const lo: number[] = [];
  const hi: number[] = [];
  for (let j = 1; j < k; j++) {
    const half = z975 * Math.sqrt(s2 * inv[j * k + j]!);
    lo.push(B * ols[j]! - half);
    hi.push(B * ols[j]! + half);
    if (beta[j]! >= lo[j - 1]! && beta[j]! <= hi[j - 1]!) trueCover++;
  }
  const noiseRng = seededRng(`alg4-noise-${r}`);
  methods.forEach((meth, a) =>
    epsGrid.forEach((eps, e) => {
      const Tn = Float64Array.from(T);
      perturbFunctionalStatistic(noiseRng, Tn, p, eps, meth.norm, meth.norm === 'optimal' ? stats : undefined, body);
      const b = functionalRegressionCoefficients(Tn, n, p);
      let c = 0;
      for (let j = 1; j < k; j++) if (B * b[j]! >= lo[j - 1]! && B * b[j]! <= hi[j - 1]!) c++;
      cover[a]![e]! += c / p;
    }),
  );
}
const frac = cover.map((byEps) => byEps.map((c) => c / replicates));
const header = ['eps', ...methods.map((m) => m.name)];
const rows = epsGrid.map((eps, e) => [eps >= 1 ? String(eps) : `1/${Math.round(1 / eps)}`, ...frac.map((f) => f[e]!)]);
const table = markdownTable(header, rows);
console.log(table);
const target = frac[0]![5]!; // l1's coverage at eps = 2
const reach = methods.map((m, a) => `${m.name}: ${epsToReach(epsGrid, frac[a]!, target, false).toPrecision(3)}`).join(', ');
console.log(`eps needed to reach l1's coverage at eps = 2 (${target.toFixed(3)}): ${reach}`);
const trueFrac = trueCover / (replicates * p);
const acc = stats.accepted / stats.proposals;
const secs = ((performance.now() - t0) / 1000).toFixed(0);
console.log(`true beta inside the non-private CIs: ${trueFrac.toFixed(3)}; truncated Y: ${(truncated / (replicates * n)).toExponential(2)}; optimal-K acceptance ${acc.toFixed(4)}; ${secs} s`);
writeDoc(
  `knorm-linear-results${suffix}.md`,
  `# K-norm functional mechanism: linear regression coverage (Algorithm 4)

Generated by \`npx tsx examples/knorm-linear-sim.ts ${replicates} ${n}\` (${replicates} replicates, n = ${n}, p = 5,
seeded; ${secs} s). Fraction of the 5 slope coefficients of the private estimate that fall inside the
non-private 95% confidence intervals, averaged over replicates. Y was divided by the public bound
B = ${B} and truncated to [-1, 1] (fraction truncated: ${(truncated / (replicates * n)).toExponential(2)}); the true beta lies inside the
non-private intervals for ${(100 * trueFrac).toFixed(1)}% of the coefficients. Optimal-K rejection sampler acceptance: ${acc.toFixed(4)}.

${table}

Budget eps needed to reach l1's coverage at eps = 2 (${target.toFixed(3)}), log-linear interpolation: ${reach}.

![coverage](knorm-linear${suffix}.svg)
`,
);
writeDoc(
  `knorm-linear${suffix}.svg`,
  svgPlot('Linear regression coverage (Algorithm 4)', 'eps', 'fraction inside the 95% CI', epsGrid, methods.map((m, a) => ({ name: m.name, values: frac[a]! })), [{ y: trueFrac, label: 'true beta' }]),
);
