/**
 * K-norm noise: 1e5 vectors in m = 10 for l1, l2 and l-infinity, against drawing 1e5 Gaussian
 * vectors of the same size (fillNormal on 1e6 doubles) from the same CSPRNG; and the rejection
 * sampler for polytopes (half-space form in m = 7 and m = 20, vertex form with HiGHS membership in
 * m = 7), each against Gaussian vectors of the same count and dimension. Rates are printed as
 * vectors per second.
 */
import { Polytope } from '../src/mechanisms/knorm/polytope.js';
import { sampleKNormNoise, type RejectionStats } from '../src/mechanisms/knorm/sample.js';
import { functionalRegressionBody } from '../src/models/functional-linear.js';
import { fillNormal } from '../src/random/continuous.js';
import { cryptoRng } from '../src/random/rng.js';
import { runBench, type BenchCase } from './harness.js';

/** {|u_i| <= 1, |u_i + u_(i+1)| <= 1.5 (cyclic)}: 4m half-spaces, bounding box [-1, 1]^m from LPs. */
async function bandPolytope(m: number): Promise<Polytope> {
  const A: number[][] = [];
  const b: number[] = [];
  for (let i = 0; i < m; i++) {
    for (const s of [1, -1]) {
      const e = new Array<number>(m).fill(0);
      e[i] = s;
      A.push(e);
      b.push(1);
      const f = new Array<number>(m).fill(0);
      f[i] = s;
      f[(i + 1) % m] = s;
      A.push(f);
      b.push(1.5);
    }
  }
  return Polytope.fromHalfspaces(A, b);
}

export default async function (): Promise<void> {
  const rng = cryptoRng();
  const m = 10;
  const count = 100_000;
  const buf = new Float64Array(count * m);
  const gauss = () => fillNormal(rng, buf);
  const cases: BenchCase[] = (['l1', 'l2', 'linf'] as const).map((norm) => ({
    name: `knorm ${norm} 1e5 x m=10`,
    baselineName: 'gaussian vectors 1e5 x m=10',
    baseline: gauss,
    run: () => sampleKNormNoise(rng, norm, m, 0.5, count, { out: buf }),
  }));
  runBench('K-norm noise vectors', cases);

  const polyCases: { label: string; body: Polytope; draws: number; m: number }[] = [
    { label: 'polytope H-form m=7', body: await bandPolytope(7), draws: 10_000, m: 7 },
    { label: 'polytope H-form m=20', body: await bandPolytope(20), draws: 10_000, m: 20 },
  ];
  const cube: number[][] = [];
  for (let mask = 0; mask < 1 << 7; mask++) cube.push(Array.from({ length: 7 }, (_, i) => ((mask >> i) & 1 ? 1 : -1)));
  polyCases.push({ label: 'polytope V-form (HiGHS LP) m=7', body: await Polytope.fromVertices(cube), draws: 200, m: 7 });
  const opt = functionalRegressionBody(5);
  const stats = new Map<string, RejectionStats>();
  const bench: BenchCase[] = polyCases.map(({ label, body, draws, m: dim }) => {
    const out = new Float64Array(draws * dim);
    const base = new Float64Array(draws * dim);
    const st: RejectionStats = { proposals: 0, accepted: 0 };
    stats.set(label, st);
    return { name: `${label}, ${draws} draws`, baselineName: `gaussian vectors ${draws} x m=${dim}`, baseline: () => fillNormal(rng, base), run: () => sampleKNormNoise(rng, body, dim, 1, draws, { out, stats: st }), repeats: 5 };
  });
  {
    const dim = opt.dim;
    const draws = 2000;
    const out = new Float64Array(draws * dim);
    const base = new Float64Array(draws * dim);
    const st: RejectionStats = { proposals: 0, accepted: 0 };
    stats.set('functional optimal K (p=5, d=26)', st);
    bench.push({ name: `functional optimal K d=26, ${draws} draws`, baselineName: `gaussian vectors ${draws} x m=26`, baseline: () => fillNormal(rng, base), run: () => sampleKNormNoise(rng, opt, dim, 1, draws, { out, stats: st }), repeats: 5 });
  }
  const res = runBench('K-norm rejection samplers', bench);
  res.forEach((r, i) => {
    const draws = i < polyCases.length ? polyCases[i]!.draws : 2000;
    const label = i < polyCases.length ? polyCases[i]!.label : 'functional optimal K (p=5, d=26)';
    const st = stats.get(label)!;
    console.log(`${label}: ${Math.round((draws / r.medianMs) * 1000)} vectors/s, acceptance ${(st.accepted / st.proposals).toFixed(4)}`);
  });
}
