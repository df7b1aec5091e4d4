import { describe, expect, it } from 'vitest';
import { betaInc, betaQuantile, chiSquareSf, erf, erfc, logGamma, normalCdf, normalQuantile, normalSf } from '../../src/math/special.js';

// Golden values from standard tables (R: pnorm, qnorm, pbeta, pchisq, lgamma).
describe('special functions', () => {
  it('normal CDF, survival and quantile', () => {
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 14);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 12);
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361340902404056, 10);
    expect(normalSf(10) / 7.619853024160527e-24).toBeCloseTo(1, 10);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 14);
    for (const p of [1e-300, 1e-20, 0.001, 0.3, 0.7, 0.999999]) expect(normalCdf(normalQuantile(p)) / p).toBeCloseTo(1, 10);
  });
  it('erf, erfc, log-gamma, incomplete beta, chi-square', () => {
    expect(erf(0.3)).toBeCloseTo(0.3286267594591112, 12);
    expect(erfc(5) / 1.537459794428035e-12).toBeCloseTo(1, 10);
    expect(logGamma(10)).toBeCloseTo(Math.log(362880), 12);
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 12);
    expect(betaInc(0.3, 2, 5)).toBeCloseTo(0.579825, 12);
    expect(betaQuantile(betaInc(0.2, 3.5, 7), 3.5, 7)).toBeCloseTo(0.2, 12);
    expect(chiSquareSf(3.841458820694124, 1)).toBeCloseTo(0.05, 12);
  });
});
