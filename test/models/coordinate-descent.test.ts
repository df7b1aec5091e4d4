import { afterEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, PrivacyAccountant, ProximalCoordinateDescentDP, seededRng, setDefaultAccountant } from '../../src/index.js';

const X = [[0.1, 0.9], [0.8, 0.2], [0.3, 0.7], [0.9, 0.1]];
const y = [0, 1, 0, 1];
const bounds = { lower: [0, 0], upper: [1, 1] };

describe("ProximalCoordinateDescentDP with noise kind 'none' (non-private baseline)", () => {
  afterEach(() => {
    setDefaultAccountant(undefined);
  });

  it('states no finite guarantee (eps = Infinity, was 0) for its exact coefficients', () => {
    const m = new ProximalCoordinateDescentDP({ lambda: 0.01, epochs: 3, noise: { kind: 'none' } }).fit(X, y, { ...bounds, rng: seededRng(1) });
    expect(m.guarantee!.eps).toBe(Infinity);
    expect(m.coef!.every((v) => Number.isFinite(v))).toBe(true);
    // a private fit keeps its composed eps
    const p = new ProximalCoordinateDescentDP({ lambda: 0.01, epochs: 3, noise: { kind: 'laplace', eps: 0.1 } }).fit(X, y, { ...bounds, rng: seededRng(1), accountant: null });
    expect(p.guarantee!.eps).toBeCloseTo(0.6, 12);
  });

  it('is refused, before reading the data, when an accountant (explicit or default) would record nothing for it', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    const none = () => new ProximalCoordinateDescentDP({ lambda: 0.01, epochs: 3, noise: { kind: 'none' } });
    expect(() => none().fit(X, y, { ...bounds, accountant: acc })).toThrow(InvalidArgumentError);
    setDefaultAccountant(acc);
    expect(() => none().fit(X, y, bounds)).toThrow(/accountant/);
    expect(acc.ledger()).toHaveLength(0);
    expect(none().fit(X, y, { ...bounds, accountant: null }).coef).toHaveLength(2);
  });
});

describe('ProximalCoordinateDescentDP: bounds', () => {
  it('a bound range that overflows is refused before the budget check (every value scaled to NaN after the charge)', () => {
    const acc = new PrivacyAccountant({ eps: 10 });
    const cd = () => new ProximalCoordinateDescentDP({ lambda: 0.01, epochs: 2, noise: { kind: 'laplace', eps: 0.5 } });
    expect(() => cd().fit([[0], [0.5], [0.2]], [1, 0, 1], { lower: [-1e308], upper: [1e308], rng: seededRng(1), accountant: acc })).toThrow(/finite range/);
    expect(acc.ledger()).toHaveLength(0);
    // a range near the largest double still fits (2 (v - lo) overflowed before)
    const m = cd().fit([[1e307], [0], [-1e307]], [1, 0, 1], { lower: [-8e307], upper: [8e307], rng: seededRng(1), accountant: acc });
    expect(m.coef!.every((v) => Number.isFinite(v))).toBe(true);
  });
});
