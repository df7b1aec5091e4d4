import { describe, expect, it } from 'vitest';
import { ConvergenceError, InvalidArgumentError } from '../../src/errors.js';
import { gammaP, betaInc, normalCdf } from '../../src/math/special.js';
import { cmsObjectiveCalibration, cmsObjectiveParameters, cmsObjectivePerturbation, cmsObjectiveSolve, cmsOutputPerturbation, cmsOutputSensitivity, cmsOutputSolveOptions } from '../../src/models/erm/cms.js';
import { kstObjectivePerturbation, kstParameters } from '../../src/models/erm/kst.js';
import { huberLoss, huberLossDeriv, logisticLoss, logisticLossDeriv, lossCurvature, sigmoid } from '../../src/models/erm/losses.js';
import { sampleGammaSphere, sampleGaussianVector } from '../../src/models/erm/noise.js';
import { checkRegularizer, ermObjective, ermTolerance, minimizeErm, solveErm, type ErmProblem } from '../../src/models/erm/objective.js';
import { ballProjection } from '../../src/optimize/projections.js';
import { seededRng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';

function randomProblem(seed: number, n: number, d: number, loss: ErmProblem['loss'], extra: Partial<ErmProblem> = {}): ErmProblem {
  const rng = seededRng(seed);
  const X = new Float64Array(n * d);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < d; j++) {
      const v = rng.nextDouble() * 2 - 1;
      X[i * d + j] = v;
      s += v * v;
    }
    const f = 1 / Math.max(1, Math.sqrt(s)); // rows in the unit ball
    for (let j = 0; j < d; j++) X[i * d + j]! *= f;
    const z = X[i * d]! * 2 - X[i * d + d - 1]!;
    if (loss === 'logistic') y[i] = rng.nextDouble() < sigmoid(3 * z) ? 1 : 0;
    else if (loss === 'huber') y[i] = rng.nextDouble() < sigmoid(3 * z) ? 1 : -1;
    else y[i] = z + 0.1 * (rng.nextDouble() - 0.5);
  }
  return { n, d, X, y, loss, gamma: 1, regularizer: 'l2', ...extra };
}

const gammaCdf = (shape: number, rate: number) => (x: number) => (x <= 0 ? 0 : gammaP(shape, rate * x));

describe('losses', () => {
  it('logistic loss and derivative, stable for large |z|', () => {
    expect(logisticLoss(0, 1)).toBeCloseTo(Math.log(2), 15);
    expect(logisticLoss(800, 0)).toBeCloseTo(800, 10);
    expect(logisticLoss(-800, 0)).toBe(0);
    expect(logisticLossDeriv(0, 1)).toBe(-0.5);
    expect(sigmoid(-800)).toBe(0);
    expect(lossCurvature('logistic')).toBe(0.25);
  });

  it('Huber loss pieces (DPpack eq. 16) and derivative', () => {
    const h = 0.5;
    expect(huberLoss(2, 1, h)).toBe(0); // margin 2 > 1.5
    expect(huberLoss(0, 1, h)).toBe(1); // margin 0 < 0.5: 1 - m
    expect(huberLoss(1, 1, h)).toBeCloseTo((0.5 * 0.5) / 2, 15); // (1 + h - m)^2 / (4h)
    expect(huberLoss(-1, -1, h)).toBeCloseTo(0.125, 15);
    for (const z of [-2, 0.3, 0.7, 1, 1.2, 1.6]) {
      for (const y of [-1, 1]) {
        const num = (huberLoss(z + 1e-6, y, h) - huberLoss(z - 1e-6, y, h)) / 2e-6;
        expect(huberLossDeriv(z, y, h)).toBeCloseTo(num, 6);
      }
    }
    expect(lossCurvature('huber', 0.25)).toBe(2);
  });
});

describe('CMS and KST parameters (golden values)', () => {
  it('objective perturbation eps\', Delta (CMS Algorithm 2)', () => {
    const a = cmsObjectiveParameters(1, 1, 0.25, 1000);
    expect(a.epsPrime).toBeCloseTo(0.5537128973715805, 15); // 1 - ln(1.5625)
    expect(a.Delta).toBe(0);
    expect(a.rate).toBeCloseTo(0.5537128973715805 / 2, 15);
    const b = cmsObjectiveParameters(0.1, 1, 0.25, 20000);
    expect(b.epsPrime).toBe(0.05);
    expect(b.Delta).toBeCloseTo(4.437760413954033e-4, 17);
    const c = cmsObjectiveParameters(2, 0.5, 1, 100); // 2 - ln(9) < 0
    expect(c.epsPrime).toBe(1);
    expect(c.Delta).toBeCloseTo(1 / (100 * Math.expm1(0.5)) - 0.005, 15);
    expect(c.Delta).toBeGreaterThan(0);
  });

  it('output perturbation sensitivity (2W + 2 tau)/gamma, tau = 1e-5 max(1, W), independent of n', () => {
    expect(cmsOutputSensitivity(4)).toBe((2 + 2e-5) / 4);
    expect(cmsOutputSensitivity(4, 3)).toBe((6 + 6e-5) / 4);
    // the solver stops at ||grad J|| <= tau/n, i.e. ||grad (n J)|| <= tau
    expect(cmsOutputSolveOptions(3, 1000)).toEqual({ gradientBound: 3, tolerance: 3e-5 / 1000 });
  });

  it('KST Delta and noise scales', () => {
    const zeta = 2 * Math.pow(3, 1.5);
    const pure = kstParameters(0.5, 0, zeta, 3);
    expect(pure.Delta).toBe(12);
    expect(pure.rate).toBeCloseTo(0.5 / (2 * 10.392304845413264), 15);
    const approx = kstParameters(1, 1e-5, zeta, 3);
    expect(approx.Delta).toBe(6);
    expect(approx.sigma).toBeCloseTo(104.77617460920241, 10);
  });

  it('rejects bad parameters', () => {
    expect(() => cmsObjectiveParameters(0, 1, 0.25, 10)).toThrow(InvalidArgumentError);
    expect(() => cmsObjectiveParameters(1, -1, 0.25, 10)).toThrow(/gamma/);
    expect(() => cmsObjectiveParameters(1, 1, 0.25, 0)).toThrow(/n/);
    expect(() => kstParameters(1, 1.5, 1, 1)).toThrow(/delta/);
    expect(() => checkRegularizer('l1')).toThrow(/regularizer/);
  });
});

describe('ermObjective', () => {
  const custom = {
    value: (t: Float64Array) => {
      let s = 0;
      for (const v of t) s += v * v + Math.cos(v);
      return s;
    },
    gradient: (t: Float64Array, out: Float64Array) => {
      for (let j = 0; j < t.length; j++) out[j] = 2 * t[j]! - Math.sin(t[j]!);
    },
  };
  for (const loss of ['logistic', 'huber', 'squared'] as const) {
    it(`gradient of the ${loss} objective matches central differences (weights, b, Delta, custom R)`, () => {
      const rng = seededRng(9);
      const w = new Float64Array(40).map(() => rng.nextDouble() * 2);
      const p = randomProblem(3, 40, 4, loss, { weights: w, gamma: 0.7, regularizer: custom, huberH: 0.3 });
      const fg = ermObjective(p, { b: Float64Array.of(0.3, -1, 2, 0.5), quadratic: 0.2 });
      const theta = Float64Array.of(0.4, -0.8, 1.1, 0.2);
      const g = new Float64Array(4);
      const f = fg(theta, g);
      // value check against a direct formula
      let direct = 0;
      for (let i = 0; i < 40; i++) {
        let z = 0;
        for (let j = 0; j < 4; j++) z += p.X[i * 4 + j]! * theta[j]!;
        const yi = p.y[i]!;
        const l = loss === 'logistic' ? logisticLoss(z, yi) : loss === 'huber' ? huberLoss(z, yi, 0.3) : 0.5 * (z - yi) ** 2;
        direct += w[i]! * l;
      }
      direct = direct / 40 + (0.7 / 40) * (custom.value(theta) + 0.5 * (0.16 + 0.64 + 1.21 + 0.04)) + (0.3 * 0.4 - 0.8 * -1 + 2 * 1.1 + 0.5 * 0.2) / 40 + 0.1 * (0.16 + 0.64 + 1.21 + 0.04);
      expect(f).toBeCloseTo(direct, 12);
      const gp = new Float64Array(4);
      for (let j = 0; j < 4; j++) {
        const tp = Float64Array.from(theta);
        const tm = Float64Array.from(theta);
        tp[j]! += 1e-6;
        tm[j]! -= 1e-6;
        const num = (fg(tp, gp) - fg(tm, gp)) / 2e-6;
        expect(g[j]).toBeCloseTo(num, 6);
      }
    });
  }

  it('solveErm reaches the 1e-9 gradient tolerance, and throws ConvergenceError (public message) when it cannot', () => {
    const p = randomProblem(4, 500, 5, 'logistic', { gamma: 0.5 });
    const { theta } = solveErm(p);
    const g = new Float64Array(5);
    ermObjective(p)(theta, g);
    expect(Math.hypot(...g)).toBeLessThanOrEqual(1e-9);
    expect(() => solveErm(p, {}, { maxIter: 1 })).toThrow(ConvergenceError);
    const r = minimizeErm(p, {}, { maxIter: 1 });
    expect(r.converged).toBe(false);
    // Only the point, the flag and the public tolerance: no solver statistics.
    expect(Object.keys(r).sort()).toEqual(['converged', 'theta', 'tolerance']);
    expect(() => solveErm(p, {}, { maxIter: 1 })).toThrow(/^ERM minimisation did not reach the absolute gradient tolerance 1\.000e-9 the privacy guarantee needs$/);
  });

  it('the tolerance is ABSOLUTE, 1e-9 max(1, W) with W public, not relative to the data-dependent ||g(0)|| (review finding 4)', () => {
    expect(ermTolerance(1)).toBe(1e-9);
    expect(ermTolerance(0.5)).toBe(1e-9);
    expect(ermTolerance(3)).toBeCloseTo(3e-9, 24);
    // A convex add-on with a huge gradient at 0: ||g(0)|| ~ 1e4 / n * gamma; a relative test would stop at ~1e-6.
    const G = {
      value: (t: Float64Array) => 1e4 * t.reduce((s, v) => s + v, 0),
      gradient: (_t: Float64Array, out: Float64Array) => out.fill(1e4),
    };
    const p = randomProblem(12, 50, 3, 'logistic', { gamma: 50, regularizer: G });
    const g0 = new Float64Array(3);
    ermObjective(p)(new Float64Array(3), g0);
    expect(Math.hypot(...g0)).toBeGreaterThan(1e3);
    const { theta } = solveErm(p);
    const g = new Float64Array(3);
    ermObjective(p)(theta, g);
    expect(Math.hypot(...g)).toBeLessThanOrEqual(1e-9);
  });

  it('the custom regularizer is an ADD-ON to ||theta||^2/2: G = 0 gives the l2 minimiser (strong convexity by construction, review finding 6)', () => {
    const zero = { value: () => 0, gradient: (_t: Float64Array, out: Float64Array) => out.fill(0) };
    const p = randomProblem(13, 200, 3, 'huber', { gamma: 0.8 });
    const a = solveErm(p).theta;
    const b = solveErm({ ...p, regularizer: zero }).theta;
    for (let j = 0; j < 3; j++) expect(b[j]).toBeCloseTo(a[j]!, 9);
    // the objective value includes (gamma/n) ||theta||^2/2 even with G = 0
    const t = Float64Array.of(1, 2, 3);
    const g = new Float64Array(3);
    const diff = ermObjective({ ...p, regularizer: zero })(t, g) - ermObjective({ ...p, regularizer: 'l2' })(t, g);
    expect(Math.abs(diff)).toBeLessThan(1e-15);
  });
});

describe('perturbation noise', () => {
  it('||b|| ~ Gamma(d, rate) (KS), and the rate x0.7 / x1.3 is rejected', () => {
    for (const [d, rate] of [[2, 0.5], [5, 3]] as const) {
      const rng = seededRng(`norm${d}`);
      const norms = new Float64Array(6000);
      const b = new Float64Array(d);
      for (let k = 0; k < norms.length; k++) {
        sampleGammaSphere(rng, d, rate, b);
        norms[k] = Math.hypot(...b);
      }
      expect(ksTest(norms, gammaCdf(d, rate)).pValue).toBeGreaterThan(1e-6);
      expect(ksTest(norms, gammaCdf(d, rate * 0.7)).pValue).toBeLessThan(1e-6);
      expect(ksTest(norms, gammaCdf(d, rate * 1.3)).pValue).toBeLessThan(1e-6);
    }
  });

  it('the direction is uniform: u_1^2 ~ Beta(1/2, (d-1)/2), signs symmetric, independent of the norm', () => {
    const d = 4;
    const rng = seededRng('dir');
    const n = 6000;
    const u2 = new Float64Array(n);
    const norms = new Float64Array(n);
    let pos = 0;
    const b = new Float64Array(d);
    for (let k = 0; k < n; k++) {
      sampleGammaSphere(rng, d, 2, b);
      const r = Math.hypot(...b);
      norms[k] = r;
      const j = k % d; // rotate through coordinates
      u2[k] = (b[j]! / r) ** 2;
      if (b[j]! > 0) pos++;
    }
    expect(ksTest(u2, (x) => betaInc(Math.min(1, Math.max(0, x)), 0.5, (d - 1) / 2)).pValue).toBeGreaterThan(1e-6);
    // a wrong law (the coordinate of a uniform point in the BALL would be more concentrated) is rejected
    expect(ksTest(u2, (x) => betaInc(Math.min(1, Math.max(0, x)), 0.5, (d + 1) / 2)).pValue).toBeLessThan(1e-6);
    expect(Math.abs(pos - n / 2)).toBeLessThan(5.3 * Math.sqrt(n / 4)); // 5.3 sigma ~ 1e-7
    // independence: the direction's law does not depend on the norm (split at the median norm)
    const med = Float64Array.from(norms).sort()[n >> 1]!;
    const small: number[] = [];
    const large: number[] = [];
    for (let k = 0; k < n; k++) (norms[k]! < med ? small : large).push(u2[k]!);
    const cdf = (x: number) => betaInc(Math.min(1, Math.max(0, x)), 0.5, (d - 1) / 2);
    expect(ksTest(small, cdf).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(large, cdf).pValue).toBeGreaterThan(1e-6);
  });

  it('Gaussian KST noise has sd sigma per coordinate', () => {
    const rng = seededRng('gauss');
    const xs = new Float64Array(8000);
    const b = new Float64Array(4);
    for (let k = 0; k < 2000; k++) {
      sampleGaussianVector(rng, 4, 2.5, b);
      for (let j = 0; j < 4; j++) xs[4 * k + j] = b[j]!;
    }
    expect(ksTest(xs, (x) => normalCdf(x / 2.5)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, (x) => normalCdf(x / (2.5 * 0.7))).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, (x) => normalCdf(x / (2.5 * 1.3))).pValue).toBeLessThan(1e-6);
  });
});

describe('mechanisms on a fixed problem', () => {
  it('output perturbation: theta_priv - theta* = b with ||b|| ~ Gamma(d, gamma eps / (2W)); x0.7/x1.3 rejected', () => {
    const p = randomProblem(5, 30, 3, 'logistic', { gamma: 2 });
    const exact = solveErm(p).theta;
    const eps = 0.8;
    const rng = seededRng('out');
    const norms = new Float64Array(3000);
    for (let k = 0; k < norms.length; k++) {
      const fit = cmsOutputPerturbation(p, eps, rng);
      let s = 0;
      for (let j = 0; j < 3; j++) s += (fit.theta[j]! - exact[j]!) ** 2;
      norms[k] = Math.sqrt(s);
      if (k === 0) expect(fit.rate).toBe(eps / ((2 + 2 * 1e-5) / 2));
    }
    const rate = (2 * eps) / 2;
    expect(ksTest(norms, gammaCdf(3, rate)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(norms, gammaCdf(3, rate * 0.7)).pValue).toBeLessThan(1e-6);
    expect(ksTest(norms, gammaCdf(3, rate * 1.3)).pValue).toBeLessThan(1e-6);
  });

  it('output perturbation: the sensitivity does not depend on n; the solver point meets ||grad (n J)|| <= tau', () => {
    const rng = seededRng('n-free');
    const sens = [30, 300, 3000].map((n) => {
      const p = randomProblem(8, n, 3, 'logistic', { gamma: 2 });
      const sol = minimizeErm(p, {}, cmsOutputSolveOptions(1, n));
      expect(sol.converged).toBe(true);
      const g = new Float64Array(3);
      ermObjective(p)(sol.theta, g);
      expect(n * Math.hypot(...g)).toBeLessThanOrEqual(1e-5);
      return cmsOutputPerturbation(p, 1, rng).sensitivity;
    });
    expect(sens).toEqual([(2 + 2e-5) / 2, (2 + 2e-5) / 2, (2 + 2e-5) / 2]);
  });

  it('weighted output perturbation uses rate gamma eps / (2W)', () => {
    const rng = seededRng('w');
    const w = new Float64Array(30).map(() => rng.nextDouble() * 3);
    const p = randomProblem(6, 30, 2, 'huber', { gamma: 1.5, weights: w });
    const fit = cmsOutputPerturbation(p, 1, rng, 3);
    expect(fit.sensitivity).toBe((2 * 3 + 2 * 3e-5) / 1.5); // (2W + 2 tau)/gamma, tau = 1e-5 W (no n)
    expect(fit.rate).toBeCloseTo(0.25, 5); // ~ 1.5 * 1 / (2 * 3)
    expect(fit.rate).toBeLessThan(0.25);
    expect(cmsOutputSensitivity(1.5, 3)).toBe(fit.sensitivity);
  });

  it("objective perturbation: ||b|| ~ Gamma(d, eps'/2) at 0.99 eps, and the solver's point is stationary for that b to tau_F = 1e-7 on n J_b", () => {
    const p = randomProblem(7, 25, 3, 'huber', { gamma: 0.5, huberH: 0.5 });
    const eps = 2; // eps' < 0 here: Delta > 0 branch
    const cal = cmsObjectiveCalibration(eps, 0.5, 1, 25);
    const params = cmsObjectiveParameters(0.99 * eps, 0.5, 1, 25);
    expect(cal.Delta).toBeGreaterThan(0);
    expect(cal.rate).toBe(params.rate);
    expect(cal.epsObjective + cal.epsOutput).toBe(eps);
    const rng = seededRng('obj');
    const norms = new Float64Array(2500);
    const g = new Float64Array(3);
    const fgJ = ermObjective(p);
    for (let k = 0; k < norms.length; k++) {
      const fit = cmsObjectiveSolve(p, cal, rng);
      expect(fit.converged).toBe(true);
      expect('b' in fit).toBe(false); // b is never returned (theta - b would be ...)
      // b is recovered from the stationarity condition n (grad J(theta) + Delta theta) + b = 0, up to tau_F = 1e-7
      fgJ(fit.theta, g);
      const bRec = Array.from(g, (gj, j) => -p.n * (gj + cal.Delta * fit.theta[j]!));
      norms[k] = Math.hypot(...bRec);
    }
    expect(ksTest(norms, gammaCdf(3, cal.rate)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(norms, gammaCdf(3, cal.rate * 0.7)).pValue).toBeLessThan(1e-6);
    expect(ksTest(norms, gammaCdf(3, cal.rate * 1.3)).pValue).toBeLessThan(1e-6);
    expect(() => cmsObjectivePerturbation({ ...p, weights: new Float64Array(25).fill(1) }, 1, 1, rng)).toThrow(/weights/);
  });

  it('objective perturbation: the release is the solver point plus output noise N, ||N|| ~ Gamma(d, 0.01 eps / S), S = 2 tau_F / (gamma + n Delta) (approximate minima perturbation)', () => {
    const p = randomProblem(8, 25, 3, 'logistic', { gamma: 2 });
    const eps = 1.5;
    const cal = cmsObjectiveCalibration(eps, 2, 0.25, 25);
    // golden: eps' = 0.99 eps - ln(1 + 2c/gamma + c^2/gamma^2) > 0, so Delta = 0 and S = 2e-7 / gamma
    expect(cal.epsOutput).toBeCloseTo(0.015, 15);
    expect(cal.epsPrime).toBeCloseTo(1.485 - Math.log(1 + 0.25 + 0.015625), 14);
    expect(cal.Delta).toBe(0);
    expect(cal.outputSensitivity).toBe(1e-7);
    expect(cal.outputRate).toBeCloseTo(0.015 / 1e-7, 6);
    // the same stream: the solver point (same b) and the release differ by N exactly
    const N = 3000;
    const norms = new Float64Array(N);
    for (let k = 0; k < N; k++) {
      const solved = cmsObjectiveSolve(p, cal, seededRng(`amp-${k}`));
      const released = cmsObjectivePerturbation(p, eps, 0.25, seededRng(`amp-${k}`));
      expect(released.converged).toBe(true);
      norms[k] = Math.hypot(...Array.from(released.theta, (t, j) => t - solved.theta[j]!));
    }
    expect(ksTest(norms, gammaCdf(3, cal.outputRate)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(norms, gammaCdf(3, cal.outputRate * 0.7)).pValue).toBeLessThan(1e-6);
    expect(ksTest(norms, gammaCdf(3, cal.outputRate * 1.3)).pValue).toBeLessThan(1e-6);
  });

  it('KST: the constrained perturbed minimiser satisfies the KKT conditions on the ball', () => {
    const p = randomProblem(8, 40, 3, 'squared');
    for (const delta of [0, 1e-6]) {
      // replay the rng to know b (the mechanism draws b first and returns only theta)
      const seed = `kst${delta}`;
      const { sigma: sd, rate: rt } = kstParameters(0.5, delta, 2 * 3 ** 1.5, 3);
      const bReplay = delta === 0 ? sampleGammaSphere(seededRng(seed), 3, rt, undefined, 'float') : sampleGaussianVector(seededRng(seed), 3, sd, undefined, 'float');
      const fit = kstObjectivePerturbation(p, { eps: 0.5, delta, zeta: 2 * 3 ** 1.5, lambda: 3, project: ballProjection(0.3) }, seededRng(seed));
      expect(fit.converged).toBe(true);
      expect('b' in fit).toBe(false);
      const fg = ermObjective(p, { b: bReplay, quadratic: fit.Delta / p.n });
      const g = new Float64Array(3);
      fg(fit.theta, g);
      const r = Math.hypot(...fit.theta);
      expect(r).toBeLessThanOrEqual(0.3 * (1 + 1e-12));
      if (r > 0.3 * (1 - 1e-9)) {
        // on the boundary: -g = mu theta with mu >= 0
        const mu = -(g[0]! * fit.theta[0]! + g[1]! * fit.theta[1]! + g[2]! * fit.theta[2]!) / (r * r);
        expect(mu).toBeGreaterThanOrEqual(0);
        for (let j = 0; j < 3; j++) expect(Math.abs(g[j]! + mu * fit.theta[j]!)).toBeLessThan(1e-6 * (1 + Math.abs(mu)));
      } else {
        expect(Math.hypot(...g)).toBeLessThan(1e-6);
      }
      if (delta > 0) expect(fit.sigma).toBeGreaterThan(0);
    }
  });
});
