/**
 * The boundary rule in the library: a poisoned data value (a unique marker string, a marker number)
 * never appears in a thrown error's message, stack or JSON, whichever release function refuses it;
 * an error raised after the budget check carries neither a value nor an index (position) and the
 * failed release is charged.
 */
import { describe, expect, it } from 'vitest';
import {
  FunctionalLinearRegressionDP,
  KNormLogisticRegressionDP,
  LaplaceSgdDP,
  LinearRegressionDP,
  LogisticRegressionDP,
  NaiveBayesDP,
  PrivacyAccountant,
  ProximalCoordinateDescentDP,
  SvmDP,
  DpSgdClassifier,
  boundedLaplaceMechanism,
  covDP,
  exponentialMechanism,
  gaussianMechanism,
  histogramDP,
  kNormMechanism,
  laplaceMechanism,
  meanDP,
  medianDP,
  mixedNoiseMechanism,
  pooledCovDP,
  pooledVarDP,
  quantileDP,
  reportNoisyMax,
  sdDP,
  smoothMedianDP,
  tableDP,
  truncatedLaplaceMechanism,
  tuneClassificationModel,
  varDP,
} from '../../src/index.js';
import { SpyAccountant } from '../helpers/spy-accountant.js';

const MARK = 'SECRET_MARKER_7731';
const NUM = 123456.789;
const FORBIDDEN = [MARK, '7731', '123456'];


/** 60 clean values with one poisoned element at index 57 (the index must not leak either). */
function poisoned(p: unknown): number[] {
  const a: unknown[] = Array.from({ length: 60 }, (_, i) => (i % 10) + 0.5);
  a[57] = p;
  return a as number[];
}
const rows = (p: unknown): number[][] => Array.from({ length: 60 }, (_, i) => (i === 57 ? [0.1, p as number] : [((i * 7) % 10) / 20, ((i * 3) % 10) / 20]));
const labels = (p: unknown): number[] => Array.from({ length: 60 }, (_, i) => (i === 57 ? (p as number) : i % 2));
const reals = (p: unknown): number[] => Array.from({ length: 60 }, (_, i) => (i === 57 ? (p as number) : ((i % 5) - 2) / 4));

const b = { lower: 0, upper: 10 };
const cb = { lower1: 0, upper1: 10, lower2: 0, upper2: 10 };
const fit2 = { lower: [-1, -1], upper: [1, 1] };
const dpsgd = { loss: 'logistic' as const, q: 0.5, steps: 2, sigma: 1, delta: 1e-5, clip: 1, learningRate: 0.1, expectedBatchSize: 30 };

type Call = (p: unknown, acc: PrivacyAccountant) => unknown;
/** Release functions and the argument the poison goes into (one call per poison). */
const CASES: Record<string, Call> = {
  meanDP: (p, accountant) => meanDP(poisoned(p), { eps: 1, ...b, accountant }),
  'meanDP whole argument': (p, accountant) => meanDP(p as never, { eps: 1, ...b, accountant }),
  'reportNoisyMax range': (p, accountant) => reportNoisyMax([-1e308, typeof p === 'number' ? p * 1e303 : 0], 1, 1, { accountant }),
  varDP: (p, accountant) => varDP(poisoned(p), { eps: 1, ...b, accountant }),
  sdDP: (p, accountant) => sdDP(poisoned(p), { eps: 1, ...b, accountant }),
  'varDP bounded-laplace': (p, accountant) => varDP(poisoned(p), { eps: 1, ...b, mechanism: 'bounded-laplace', accountant }),
  covDP: (p, accountant) => covDP(poisoned(1), poisoned(p), { eps: 1, ...cb, accountant }),
  pooledVarDP: (p, accountant) => pooledVarDP([poisoned(1), poisoned(p)], { eps: 1, ...b, accountant }),
  pooledCovDP: (p, accountant) => pooledCovDP([[poisoned(1), poisoned(p)]], { eps: 1, ...cb, accountant }),
  histogramDP: (p, accountant) => histogramDP(poisoned(p), { eps: 1, ...b, accountant }),
  'histogramDP breaks': (p, accountant) => histogramDP(poisoned(p), { eps: 1, breaks: [0, 1, 5, 10], accountant }),
  'tableDP levels': (p, accountant) => tableDP([poisoned(p).map((v) => (typeof v === 'number' && v !== NUM ? 'a' : v))], { eps: 1, levels: [['a', 'b']], accountant }),
  quantileDP: (p, accountant) => quantileDP(poisoned(p), 0.3, { eps: 1, ...b, accountant }),
  medianDP: (p, accountant) => medianDP(poisoned(p), { eps: 1, ...b, accountant }),
  smoothMedianDP: (p, accountant) => smoothMedianDP(poisoned(p), 1, { ...b, delta: 1e-6, accountant }),
  laplaceMechanism: (p, accountant) => laplaceMechanism(poisoned(p), 1, 1, { accountant }),
  'laplaceMechanism scalar': (p, accountant) => laplaceMechanism(p as number, 1, 1, { accountant }),
  gaussianMechanism: (p, accountant) => gaussianMechanism(poisoned(p), 0.5, 1e-5, 1, { accountant }),
  boundedLaplaceMechanism: (p, accountant) => boundedLaplaceMechanism(p as number, 1, 0.1, 1, { ...b, accountant }),
  truncatedLaplaceMechanism: (p, accountant) => truncatedLaplaceMechanism(p as number, 1, 1e-5, 1, { accountant }),
  mixedNoiseMechanism: (p, accountant) => mixedNoiseMechanism(p as number, 1, 1e-5, 1, { accountant }),
  exponentialMechanism: (p, accountant) => exponentialMechanism(poisoned(p), 1, 1, { accountant }),
  reportNoisyMax: (p, accountant) => reportNoisyMax(poisoned(p), 1, 1, { accountant }),
  kNormMechanism: (p, accountant) => kNormMechanism([1, p as number], 1, { norm: 'l1', sensitivity: 1, accountant }),
  'LogisticRegressionDP X': (p, accountant) => new LogisticRegressionDP({ eps: 1, gamma: 1 }).fit(rows(p), labels(1), { ...fit2, accountant }),
  'LogisticRegressionDP y': (p, accountant) => new LogisticRegressionDP({ eps: 1, gamma: 1 }).fit(rows(0.5), labels(p), { ...fit2, accountant }),
  'SvmDP y': (p, accountant) => new SvmDP({ eps: 1, gamma: 1 }).fit(rows(0.5), labels(p), { ...fit2, accountant }),
  'LinearRegressionDP y': (p, accountant) => new LinearRegressionDP({ eps: 1, gamma: 1 }).fit(rows(0.5), reals(p), { lower: [-1, -1, -1], upper: [1, 1, 1], accountant }),
  'DpSgdClassifier X': (p, accountant) => new DpSgdClassifier(dpsgd).fit(rows(p), labels(1), { accountant }),
  'DpSgdClassifier y': (p, accountant) => new DpSgdClassifier(dpsgd).fit(rows(0.5), labels(p), { accountant }),
  'LaplaceSgdDP y': (p, accountant) => new LaplaceSgdDP({ loss: 'logistic', eps: 1, steps: 2, clip: 1 }).fit(rows(0.5), labels(p), { accountant }),
  'NaiveBayesDP X': (p, accountant) => new NaiveBayesDP({ eps: 1 }).fit(rows(p), labels(1), { ...fit2, accountant }),
  'NaiveBayesDP y': (p, accountant) => new NaiveBayesDP({ eps: 1 }).fit(rows(0.5), labels(p), { ...fit2, accountant }),
  'KNormLogisticRegressionDP X': (p, accountant) => new KNormLogisticRegressionDP({ eps: 1 }).fit(rows(p), labels(1), { accountant }),
  'KNormLogisticRegressionDP y': (p, accountant) => new KNormLogisticRegressionDP({ eps: 1 }).fit(rows(0.5), labels(p), { accountant }),
  'FunctionalLinearRegressionDP X': (p, accountant) => new FunctionalLinearRegressionDP({ eps: 1 }).fit(rows(p), reals(0.1), { accountant }),
  'FunctionalLinearRegressionDP y': (p, accountant) => new FunctionalLinearRegressionDP({ eps: 1 }).fit(rows(0.5), reals(p), { accountant }),
  'ProximalCoordinateDescentDP y': (p, accountant) =>
    new ProximalCoordinateDescentDP({ lambda: 0.1, epochs: 1, noise: { kind: 'laplace', eps: 1 } }).fit(rows(0.5), labels(p), { ...fit2, accountant }),
  tuneClassificationModel: (p, accountant) =>
    tuneClassificationModel([new LogisticRegressionDP({ eps: 1, gamma: 1 }), new LogisticRegressionDP({ eps: 1, gamma: 2 })], rows(p), labels(1), { ...fit2, accountant }),
};

/** Everything an error exposes. */
function exposed(e: unknown): string {
  const err = e as Error & Record<string, unknown>;
  const own: Record<string, unknown> = {};
  for (const k of Object.getOwnPropertyNames(err)) own[k] = err[k];
  return [String(err), err.message, err.stack ?? '', JSON.stringify(own), JSON.stringify(err)].join('\n');
}

async function attempt(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('no poisoned value in any error of a library release', () => {
  for (const [name, call] of Object.entries(CASES)) {
    for (const [label, poison] of [
      ['marker string', MARK],
      ['marker number', NUM],
      ['NaN', Number.NaN],
      ['null', null],
    ] as const) {
      it(`${name}: ${label}`, async () => {
        const acc = new SpyAccountant();
        const e = await attempt(() => call(poison, acc));
        if (e === undefined) return; // accepted (e.g. clipped into the bounds): nothing to leak
        const text = exposed(e);
        for (const f of FORBIDDEN) expect(text, `${name} leaks ${f}`).not.toContain(f);
        // The poisoned record's position (57) is not shown either, before or after the check.
        expect((e as Error).message, `${name}: position of a data value`).not.toMatch(/\b57\b/);
        if (acc.calls.includes('check')) {
          // After the budget check: value-free and index-free, and charged.
          expect((e as Error).message, `${name}: index after the check`).not.toMatch(/\[\d+\]|\b57\b/);
          expect(acc.calls, `${name}: a failure after the check is charged`).toContain('spend');
        }
      });
    }
  }
});

describe('the report case', () => {
  it('meanDP with "SECRET" in x: refused after the check with a fixed message, and charged', () => {
    const acc = new SpyAccountant();
    const x = poisoned('SECRET');
    let err: unknown;
    try {
      meanDP(x, { eps: 1, lower: 0, upper: 100, accountant: acc });
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).toBe('x[…] must be a finite number');
    expect(exposed(err)).not.toContain('SECRET');
    expect(acc.calls.filter((c) => c !== 'costOf').slice(0, 2)).toEqual(['check', 'spend']); // (spend re-checks internally)
    expect(acc.spent().eps).toBe(1);
    expect(acc.ledger()[0]!.mechanism).toMatch(/\(failed\)$/);
  });

  it('an element error never shows the element, a whole-argument error still shows a public value', async () => {
    const { InvalidArgumentError } = await import('../../src/index.js');
    // A public array: the position is kept, the element is not shown.
    expect(new InvalidArgumentError('breaks[3]', 'must be a finite number', MARK).message).toBe('breaks[3] must be a finite number');
    // A private data argument: neither the element nor its position (a shape error keeps its row).
    expect(new InvalidArgumentError('x[3]', 'must be a finite number', MARK).message).toBe('x[…] must be a finite number');
    expect(new InvalidArgumentError('X[3][1]', 'must be a finite number', NUM).argument).toBe('X[…][…]');
    expect(new InvalidArgumentError('X[3]', 'must have 2 columns', 5).message).toBe('X[3] must have 2 columns');
    expect(new InvalidArgumentError('eps', 'must be a finite number > 0', -1).message).toBe('eps must be a finite number > 0, got -1');
  });
});
