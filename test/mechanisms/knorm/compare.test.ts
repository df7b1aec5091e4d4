import { describe, expect, it } from 'vitest';
import { compareKNorms, kNormEntropy, lpBallVolume, sensitivitySpace } from '../../../src/mechanisms/knorm/compare.js';
import { gauge } from '../../../src/mechanisms/knorm/ball.js';
import { sampleKNormNoise } from '../../../src/mechanisms/knorm/sample.js';
import { seededRng } from '../../../src/random/rng.js';

/** Example 2.10: T(X) = (sum x_i, 2 sum x_i^2), x_i in [-1, 1]; differences g(x1) - g(x2) on a fine grid. */
function example210Points(steps = 400): number[][] {
  const pts: number[][] = [];
  for (let i = 0; i <= steps; i++)
    for (let j = 0; j <= steps; j++) {
      const x1 = -1 + (2 * i) / steps;
      const x2 = -1 + (2 * j) / steps;
      pts.push([x1 - x2, 2 * x1 * x1 - 2 * x2 * x2]);
    }
  return pts;
}

describe('lpBallVolume and kNormEntropy', () => {
  it('match the closed forms', () => {
    expect(lpBallVolume(1, 2, 1)).toBeCloseTo(2, 12);
    expect(lpBallVolume(2, 2, 1)).toBeCloseTo(Math.PI, 12);
    expect(lpBallVolume(2, 3, 2)).toBeCloseTo((4 / 3) * Math.PI * 8, 10);
    expect(lpBallVolume(Infinity, 5, 0.5)).toBe(1);
    expect(lpBallVolume(1, 10, 1)).toBeCloseTo(1024 / 3628800, 15);
    expect(() => lpBallVolume(0.5, 2)).toThrow(/p must be/);
    // Entropy of Laplace(b) in 1-D is 1 + ln(2b): m = 1, K = [-1, 1].
    expect(kNormEntropy(1, 2, 3, 2)).toBeCloseTo(1 + Math.log(2 * 1.5), 12);
  });

  it('kNormEntropy agrees with a Monte Carlo estimate of -E log f(V) (l2, m = 3)', () => {
    const m = 3;
    const eps = 1.5;
    const Delta = 2;
    const n = 200_000;
    const v = sampleKNormNoise(seededRng('ent'), 'l2', m, eps / Delta, n);
    const logNorm = Math.log(6) + Math.log(lpBallVolume(2, m)) + m * Math.log(Delta / eps);
    let s = 0;
    let s2 = 0;
    for (let k = 0; k < n; k++) {
      const x = (eps / Delta) * gauge('l2', v.subarray(k * m, k * m + m)) + logNorm;
      s += x;
      s2 += x * x;
    }
    const mean = s / n;
    const se = Math.sqrt((s2 / n - mean * mean) / n);
    expect(Math.abs(mean - kNormEntropy(m, eps, Delta, lpBallVolume(2, m)))).toBeLessThan(6 * se);
  });
});

describe('Example 2.10 / 3.20 / 3.22 of Awan & Slavkovic, from our own computation', () => {
  it('exact sensitivities, volumes, no containment, volume order linf < l2 < l1, hull optimal (13.33)', async () => {
    const c = await compareKNorms(example210Points());
    const by = Object.fromEntries(c.candidates.map((r) => [r.name, r]));
    expect(by.l1!.sensitivity).toBeCloseTo(3.125, 4);
    expect(by.l2!.sensitivity).toBeCloseTo(Math.sqrt(71 + 8 * Math.SQRT2) / 4, 4);
    expect(by.linf!.sensitivity).toBe(2);
    expect(by.l1!.volume).toBeCloseTo(19.53, 2);
    expect(by.l2!.volume).toBeCloseTo(16.16, 2);
    expect(by.linf!.volume).toBeCloseTo(16, 10);
    expect(by.hull!.volume).toBeCloseTo(40 / 3, 3); // 16 - 4 * 2/3
    // Example 3.20 (left plot): with exact sensitivities no lp ball contains another.
    const idx = (n: string) => c.candidates.findIndex((r) => r.name === n);
    for (const a of ['l1', 'l2', 'linf']) for (const b of ['l1', 'l2', 'linf']) if (a !== b) expect(c.containment[idx(a)]![idx(b)]).toBe(false);
    // The hull is inside every ball.
    for (const b of ['l1', 'l2', 'linf']) expect(c.containment[idx('hull')]![idx(b)]).toBe(true);
    expect(c.volumeOrder).toEqual(['hull', 'linf', 'l2', 'l1']);
    expect(c.recommendation).toBe('hull');
    // Without the hull the volume order picks l-infinity (Example 3.22).
    const lp = await compareKNorms(example210Points(100), ['l1', 'l2', 'linf']);
    expect(lp.recommendation).toBe('linf');
  });

  it('with the approximate sensitivities of Equation (2) the balls nest: linf in l2 in l1 (Example 3.20, right plot)', async () => {
    const c = await compareKNorms(example210Points(50), ['l1', 'l2', 'linf'], { sensitivities: { l1: 4, l2: Math.sqrt(8), linf: 2 } });
    const [l1, l2, linf] = [0, 1, 2];
    expect(c.containment[linf]![l2]).toBe(true);
    expect(c.containment[l2]![l1]).toBe(true);
    expect(c.containment[l1]![l2]).toBe(false);
    expect(c.containment[l2]![linf]).toBe(false);
  });

  it('sensitivitySpace samples the same space (exploration aid), and a flat space has no hull', async () => {
    const T = (xs: number[][]) => [xs.reduce((s, x) => s + x[0]!, 0), xs.reduce((s, x) => s + 2 * x[0]! ** 2, 0)];
    const pts = sensitivitySpace(T, [[-1], [1]], { samples: 20_000, n: 3, rng: seededRng('ss') });
    expect(pts.length).toBe(20_000 + 4);
    for (const u of pts) expect(Math.abs(u[1]!)).toBeLessThanOrEqual(Math.abs(u[0]!) <= 1 ? 2 : 2 - 2 * (Math.abs(u[0]!) - 1) ** 2 + 1e-12);
    const c = await compareKNorms(pts, ['l1', 'l2', 'linf', 'hull']);
    expect(c.candidates.find((r) => r.name === 'linf')!.sensitivity).toBe(2); // attained at the corners
    expect(c.candidates.find((r) => r.name === 'l1')!.sensitivity).toBeLessThanOrEqual(3.125);
    const viaSpec = await compareKNorms({ T, domain: [[-1], [1]], samples: 2000, n: 2 }, ['linf', 'hull'], { rng: seededRng('spec') });
    expect(viaSpec.candidates[0]!.sensitivity).toBe(2);
    expect(viaSpec.recommendation).toBe('hull');
    const flat = await compareKNorms(pts.map((u) => [u[0]!, 2 * u[0]!]), ['l1', 'linf', 'hull']);
    expect(flat.candidates.map((r) => r.name)).toEqual(['l1', 'linf']);
    expect(flat.reason).toMatch(/not full-dimensional/);
    expect(() => sensitivitySpace(T, [[1], [-1]])).toThrow(/lo <= hi/);
  });

  it('3-D: the (x, y, xy) statistic: hull = K3 of Section 5.1 (volume 160/3), optimal; 4-D hull by LP', async () => {
    const T = (xs: number[][]) => [xs[0]![0]!, xs[0]![1]!, xs[0]![0]! * xs[0]![1]!];
    const pts = sensitivitySpace(T, [[-1, -1], [1, 1]], { samples: 200, rng: seededRng('k3') });
    const c = await compareKNorms(pts);
    expect(c.candidates.find((r) => r.name === 'hull')!.volume).toBeCloseTo(160 / 3, 8);
    expect(c.recommendation).toBe('hull');
    const cross: number[][] = [];
    for (let i = 0; i < 4; i++) for (const s of [1, -1]) cross.push([0, 1, 2, 3].map((j) => (j === i ? s : 0)));
    const c4 = await compareKNorms(cross, ['l1', 'linf', 'hull'], { rng: seededRng('c4'), volumeSamples: 3000 });
    const h = c4.candidates.find((r) => r.name === 'hull')!;
    expect(Math.abs(h.volume - 16 / 24)).toBeLessThan(0.15);
    expect(c4.containment[2]![0]).toBe(null); // hull (LP form) vs l1: vertices not listed above 3-D
    expect(c4.containment[0]![2]).toBe(true); // the l1 ball's vertices are in the hull
  });
});
