/**
 * Strict options across the public API: every exported release function, mechanism, model (its
 * constructor and `fit`), tuning function and accountant rejects an unknown option key with an
 * UnknownOptionError BEFORE the budget is checked (the accountant passed alongside is neither asked
 * nor charged), and the same call without the unknown key passes every validation and reaches the
 * budget check (so the listed argument set is valid and the known keys are accepted).
 *
 * The list is checked against the module's exports: a new export whose name ends in DP or Mechanism
 * (function or class) that is not listed here fails the test.
 */
import { describe, expect, it } from 'vitest';
// Every export of the package (the root and dpkit/internals): a release hidden in the internals is checked too.
import * as dpkit from '../../src/internals.js';
import {
  BudgetExceededError,
  DataDependentNoise,
  DpSgdClassifier,
  DpSgdRegressor,
  FunctionalLinearRegressionDP,
  InvalidArgumentError,
  KNormLogisticRegressionDP,
  LaplaceSgdDP,
  LinearClassifierDP,
  LinearRegressionDP,
  LogisticRegressionDP,
  NaiveBayesDP,
  OptimizedNoise,
  PrivacyAccountant,
  ProximalCoordinateDescentDP,
  RdpAccountant,
  SvmDP,
  UnknownOptionError,
  boundedLaplaceMechanism,
  covDP,
  dataDependentNoiseMechanism,
  exponentialMechanism,
  gaussianMechanism,
  histogramDP,
  kNormMechanism,
  laplaceMechanism,
  meanDP,
  medianDP,
  mixedNoiseMechanism,
  opDisc,
  opDiscClassifier,
  opSamp,
  opSampSync,
  optimizedNoiseMechanism,
  pooledCovDP,
  pooledVarDP,
  quantileDP,
  reportNoisyMax,
  rspmClassifier,
  sdDP,
  seededRng,
  smoothMedianDP,
  tableDP,
  truncatedLaplaceMechanism,
  tuneClassificationModel,
  tuneLinearRegressionModel,
  varDP,
  type OracleResult,
} from '../../src/index.js';
import { editDistance, suggestKey } from '../../src/options.js';
import { SpyAccountant } from '../helpers/spy-accountant.js';


type Opts = Record<string, unknown>;
/** One public entry: `run(extra)` calls it with `extra` merged into its options object. */
interface Entry {
  run: (extra: Opts) => unknown;
  /** true: the entry takes { accountant } (a release); false: a constructor or a non-release. */
  release: boolean;
}

const x = [1, 2, 3, 4, 5, 6, 7, 8];
const X = [
  [0.1, 0.2],
  [0.3, -0.4],
  [-0.5, 0.6],
  [0.7, 0.8],
];
const y01 = [0, 1, 0, 1];
const yReal = [0.1, -0.2, 0.3, -0.4];
const bounds = { lower: 0, upper: 10 };
const fakeNoise = Object.create(OptimizedNoise.prototype) as OptimizedNoise;
const fakeDataNoise = Object.create(DataDependentNoise.prototype) as DataDependentNoise;
const cms = { eps: 1, gamma: 1 };
const dpsgd = { loss: 'logistic' as const, q: 0.5, steps: 2, sigma: 1, delta: 1e-5, clip: 1, learningRate: 0.1, expectedBatchSize: 2 };
const clsFit = { lower: [-1, -1], upper: [1, 1] };
const oracleResult = (): OracleResult => ({ w: Float64Array.of(0), objective: 0, bound: 0, alpha: 0, status: 'optimal', certified: true, timeMs: 0, iterations: 0, solver: 'test' });
const opSampParams = { eps: 1, delta: 1e-3, n: 4, d: 1, lipschitz: 1, diamInf: 2, diam2: 2 };
const tunable = () => [new LogisticRegressionDP(cms), new LogisticRegressionDP({ eps: 1, gamma: 2 })];
const opt = (o: Opts, extra: Opts) => ({ ...o, ...extra }) as never;

/** Release functions and other public entries with an options object, by export name. */
const FUNCTIONS: Record<string, Entry> = {
  meanDP: { release: true, run: (e) => meanDP(x, opt({ eps: 1, ...bounds }, e)) },
  varDP: { release: true, run: (e) => varDP(x, opt({ eps: 1, ...bounds }, e)) },
  sdDP: { release: true, run: (e) => sdDP(x, opt({ eps: 1, ...bounds }, e)) },
  covDP: { release: true, run: (e) => covDP(x, x, opt({ eps: 1, lower1: 0, upper1: 10, lower2: 0, upper2: 10 }, e)) },
  pooledVarDP: { release: true, run: (e) => pooledVarDP([x, x], opt({ eps: 1, ...bounds }, e)) },
  pooledCovDP: { release: true, run: (e) => pooledCovDP([[x, x], [x, x]], opt({ eps: 1, lower1: 0, upper1: 10, lower2: 0, upper2: 10 }, e)) },
  histogramDP: { release: true, run: (e) => histogramDP(x, opt({ eps: 1, ...bounds, bins: 4 }, e)) },
  tableDP: { release: true, run: (e) => tableDP([['a', 'b', 'a']], opt({ eps: 1, levels: [['a', 'b']] }, e)) },
  quantileDP: { release: true, run: (e) => quantileDP(x, 0.25, opt({ eps: 1, ...bounds }, e)) },
  medianDP: { release: true, run: (e) => medianDP(x, opt({ eps: 1, ...bounds }, e)) },
  smoothMedianDP: { release: true, run: (e) => smoothMedianDP(x, 1, opt({ ...bounds, delta: 1e-6 }, e)) },
  privateBounds: { release: true, run: (e) => dpkit.privateBounds(x, opt({ eps: 1 }, e)) },
  privateBoundsFromCounts: { release: true, run: (e) => dpkit.privateBoundsFromCounts(new Array<number>(121).fill(3), opt({ eps: 1 }, e)) },
  privateBoundsFromValueCounts: { release: true, run: (e) => dpkit.privateBoundsFromValueCounts([1, 2], [3, 4], opt({ eps: 1, range: [0, 10] as [number, number] }, e)) },
  groupByDP: {
    release: true,
    run: (e) => dpkit.groupByDP([{ s: 'a', d: 'g0' }, { s: 'b', d: 'g1' }], opt({ unit: 's', by: 'd', statistic: 'count', eps: 1, maxPartitions: 2, maxRows: 2, keys: ['g0', 'g1'] }, e)),
  },
  selectPartitions: { release: true, run: (e) => dpkit.selectPartitions(new Map([['a', 5]]), opt({ eps: 1, delta: 1e-6 }, e)) },
  laplaceMechanism: { release: true, run: (e) => laplaceMechanism(1, 1, 1, opt({}, e)) },
  gaussianMechanism: { release: true, run: (e) => gaussianMechanism(1, 0.5, 1e-5, 1, opt({}, e)) },
  boundedLaplaceMechanism: { release: true, run: (e) => boundedLaplaceMechanism(1, 1, 0.1, 1, opt(bounds, e)) },
  truncatedLaplaceMechanism: { release: true, run: (e) => truncatedLaplaceMechanism(1, 1, 1e-5, 1, opt({}, e)) },
  mixedNoiseMechanism: { release: true, run: (e) => mixedNoiseMechanism(1, 1, 1e-5, 1, opt({}, e)) },
  exponentialMechanism: { release: true, run: (e) => exponentialMechanism([1, 2, 3], 1, 1, opt({}, e)) },
  reportNoisyMax: { release: true, run: (e) => reportNoisyMax([1, 2, 3], 1, 1, opt({}, e)) },
  permuteAndFlip: { release: true, run: (e) => dpkit.permuteAndFlip([1, 2, 3], 1, 1, opt({}, e)) },
  base2ExponentialMechanism: { release: true, run: (e) => dpkit.base2ExponentialMechanism([1, 2, 3], 1, 1, opt({}, e)) },
  kNormMechanism: { release: true, run: (e) => kNormMechanism([1, 2], 1, opt({ norm: 'l1', sensitivity: 1 }, e)) },
  // The options are checked first: a placeholder noise object is never reached with an unknown key;
  // without it the (unverified) placeholder is refused before the budget check (see below).
  optimizedNoiseMechanism: { release: true, run: (e) => optimizedNoiseMechanism(1, fakeNoise, opt({}, e)) },
  dataDependentNoiseMechanism: { release: true, run: (e) => dataDependentNoiseMechanism(1, fakeDataNoise, opt({}, e)) },
  opSamp: { release: true, run: (e) => opSamp(async () => oracleResult(), opSampParams, opt({}, e)) },
  opSampSync: { release: true, run: (e) => opSampSync(() => oracleResult(), opSampParams, opt({}, e)) },
  opDisc: { release: true, run: (e) => opDisc(async () => oracleResult(), { eps: 1, delta: 1e-3, lipschitz: 1, radius: 1, tau: 1, d: 1 }, opt({}, e)) },
  opDiscClassifier: { release: true, run: (e) => opDiscClassifier(X, y01, opt({ eps: 1, delta: 1e-3, lattice: { tau: 1, bound: 1 }, solver: 'enumeration' }, e)) },
  rspmClassifier: { release: true, run: (e) => rspmClassifier(X, y01, opt({ eps: 1, delta: 1e-3, solver: 'enumeration' }, e)) },
  tuneClassificationModel: { release: true, run: (e) => tuneClassificationModel(tunable(), [...X, ...X, ...X], [...y01, ...y01, ...y01], opt(clsFit, e)) },
  tuneLinearRegressionModel: {
    release: true,
    run: (e) => tuneLinearRegressionModel([new LinearRegressionDP({ eps: 1, gamma: 1 }), new LinearRegressionDP({ eps: 1, gamma: 2 })], [...X, ...X, ...X], [...yReal, ...yReal, ...yReal], opt({ lower: [-1, -1, -1], upper: [1, 1, 1] }, e)),
  },
};

/** Model classes: the constructor's options and `fit`'s, by export name. */
const MODELS: Record<string, { construct: (e: Opts) => unknown; fit: (e: Opts) => unknown }> = {
  LogisticRegressionDP: { construct: (e) => new LogisticRegressionDP(opt(cms, e)), fit: (e) => new LogisticRegressionDP(cms).fit(X, y01, opt(clsFit, e)) },
  SvmDP: { construct: (e) => new SvmDP(opt(cms, e)), fit: (e) => new SvmDP(cms).fit(X, y01, opt(clsFit, e)) },
  LinearRegressionDP: {
    construct: (e) => new LinearRegressionDP(opt({ eps: 1, gamma: 1 }, e)),
    fit: (e) => new LinearRegressionDP({ eps: 1, gamma: 1 }).fit(X, yReal, opt({ lower: [-1, -1, -1], upper: [1, 1, 1] }, e)),
  },
  DpSgdClassifier: { construct: (e) => new DpSgdClassifier(opt(dpsgd, e)), fit: (e) => new DpSgdClassifier(dpsgd).fit(X, y01, opt({}, e)) },
  DpSgdRegressor: {
    construct: (e) => new DpSgdRegressor(opt({ ...dpsgd, loss: undefined }, e)),
    fit: (e) => new DpSgdRegressor({ ...dpsgd, loss: 'squared' }).fit(X, yReal, opt({}, e)),
  },
  LaplaceSgdDP: {
    construct: (e) => new LaplaceSgdDP(opt({ loss: 'logistic', eps: 1, steps: 2, clip: 1 }, e)),
    fit: (e) => new LaplaceSgdDP({ loss: 'logistic', eps: 1, steps: 2, clip: 1 }).fit(X, y01, opt({}, e)),
  },
  NaiveBayesDP: { construct: (e) => new NaiveBayesDP(opt({ eps: 1 }, e)), fit: (e) => new NaiveBayesDP({ eps: 1 }).fit(X, y01, opt(clsFit, e)) },
  KNormLogisticRegressionDP: {
    construct: (e) => new KNormLogisticRegressionDP(opt({ eps: 1 }, e)),
    fit: (e) => new KNormLogisticRegressionDP({ eps: 1 }).fit(X, y01, opt({}, e)),
  },
  FunctionalLinearRegressionDP: {
    construct: (e) => new FunctionalLinearRegressionDP(opt({ eps: 1 }, e)),
    fit: (e) => new FunctionalLinearRegressionDP({ eps: 1 }).fit(X, yReal, opt({}, e)),
  },
  ProximalCoordinateDescentDP: {
    construct: (e) => new ProximalCoordinateDescentDP(opt({ lambda: 0.1, epochs: 1, noise: { kind: 'laplace', eps: 1 } }, e)),
    fit: (e) => new ProximalCoordinateDescentDP({ lambda: 0.1, epochs: 1, noise: { kind: 'laplace', eps: 1 } }).fit(X, y01, opt(clsFit, e)),
  },
  LinearClassifierDP: {
    construct: (e) => new LinearClassifierDP(opt({ method: 'objective', eps: 1 }, e)),
    fit: (e) => new LinearClassifierDP({ method: 'objective', eps: 1 }).fit(X, y01, opt(clsFit, e)),
  },
};

/** Exports that match the naming rule but are not releases with options (with the reason). */
const NOT_RELEASES: Record<string, string> = {
  CmsClassifier: 'abstract base of LogisticRegressionDP and SvmDP (covered through them)',
  gaussianSigmaPDP: 'a calibration formula (eps, delta, sensitivity) -> sigma, no options, no data',
  gaussianSigmaZCDP: 'a calibration formula (rho, sensitivity) -> sigma, no options, no data',
  spendParallel: 'charges an explicitly given accountant after releases made without one (its options are strict: tested below)',
};

/** Accountant constructors. */
const ACCOUNTANTS: Record<string, (e: Opts) => unknown> = {
  PrivacyAccountant: (e) => new PrivacyAccountant({ eps: 1 }, opt({}, e)),
  RdpAccountant: (e) => new RdpAccountant(opt({}, e)),
};

async function outcome(f: () => unknown): Promise<unknown> {
  try {
    await f();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('strict options over every exported release', () => {
  it('lists every export whose name ends in DP or Mechanism (functions and classes)', () => {
    const listed = new Set([...Object.keys(FUNCTIONS), ...Object.keys(MODELS), ...Object.keys(NOT_RELEASES)]);
    const missing = Object.entries(dpkit)
      .filter(([name, v]) => typeof v === 'function' && /(DP|Mechanism)$/.test(name))
      .map(([name]) => name)
      .filter((name) => !listed.has(name));
    expect(missing).toEqual([]);
    // Whatever its name, an export that calls a release runner itself is a release and must be listed.
    const runner = /\brun(Release|Checked|Single|StatPlan|OracleRelease)\b/; // (imports may be rewritten to (0, m.runRelease)(...))
    const source = (v: unknown): string => {
      if (typeof v !== 'function') return '';
      const proto = (v as { prototype?: Record<string, unknown> }).prototype;
      const fit = proto && Object.getOwnPropertyNames(proto).includes('fit') ? String(proto.fit) : '';
      return Function.prototype.toString.call(v) + fit;
    };
    const detected = Object.entries(dpkit)
      .filter(([name, v]) => runner.test(source(v)) && !['runRelease', 'runChecked', 'runSingle', 'runStatPlan', 'runOracleRelease'].includes(name))
      .map(([name]) => name);
    expect(detected).toEqual(expect.arrayContaining(['laplaceMechanism', 'opSamp'])); // the detector works
    expect(detected.filter((name) => !listed.has(name))).toEqual([]);
    // Every listed name is a real export (a renamed export must be renamed here too).
    for (const name of listed) expect(typeof (dpkit as Record<string, unknown>)[name], name).toBe('function');
    // Classes and functions are classified correctly.
    const isClass = (v: unknown) => typeof v === 'function' && /^class\b/.test(Function.prototype.toString.call(v));
    for (const name of Object.keys(MODELS)) expect(isClass((dpkit as Record<string, unknown>)[name]), name).toBe(true);
    for (const name of Object.keys(FUNCTIONS)) expect(isClass((dpkit as Record<string, unknown>)[name]), name).toBe(false);
  });

  for (const [name, entry] of Object.entries(FUNCTIONS)) {
    it(`${name}: an unknown key throws UnknownOptionError before the budget check`, async () => {
      const acc = new SpyAccountant(100);
      const before = acc.remaining();
      const err = await outcome(() => entry.run({ rng: seededRng(1), accountant: acc, acountant: acc }));
      expect(err).toBeInstanceOf(UnknownOptionError);
      expect(err).toBeInstanceOf(InvalidArgumentError);
      const u = err as UnknownOptionError;
      expect(u.fn).toBe(name);
      expect(u.key).toBe('acountant');
      expect(u.suggestion).toBe('accountant');
      expect(u.known).toContain('accountant');
      expect(u.message).toContain(name);
      expect(u.message).toContain('"acountant"');
      expect(u.message).toContain('did you mean "accountant"?');
      expect(acc.calls).toEqual([]);
      expect(acc.remaining()).toEqual(before);
      expect(acc.ledger()).toHaveLength(0);
    });
  }

  // Without the unknown key, the same arguments pass every validation and stop at the budget check
  // (a tiny budget), so the listed arguments are valid and the known keys are accepted. The two
  // mechanisms with a placeholder noise object are refused (noise not verified) before the check.
  for (const [name, entry] of Object.entries(FUNCTIONS)) {
    it(`${name}: the same call without the unknown key reaches the budget check`, async () => {
      const tiny = new SpyAccountant(1e-9);
      const err = await outcome(() => entry.run({ rng: seededRng(1), accountant: tiny }));
      if (name === 'optimizedNoiseMechanism' || name === 'dataDependentNoiseMechanism') {
        expect(err).toBeInstanceOf(InvalidArgumentError);
        expect(err).not.toBeInstanceOf(UnknownOptionError);
      } else {
        expect(err).toBeInstanceOf(BudgetExceededError);
      }
      expect(tiny.spent()).toEqual({ eps: 0, delta: 0 });
    });
  }

  for (const [name, m] of Object.entries(MODELS)) {
    it(`${name}: unknown keys of the constructor and of fit throw before the budget check`, async () => {
      const c = await outcome(() => m.construct({ epz: 1 }));
      expect(c).toBeInstanceOf(UnknownOptionError);
      expect((c as UnknownOptionError).fn).toBe(name);
      expect((c as UnknownOptionError).key).toBe('epz');
      // The constructor's own keys are accepted.
      expect(await outcome(() => m.construct({}))).toBeUndefined();
      const acc = new SpyAccountant(100);
      const f = await outcome(() => m.fit({ rng: seededRng(1), accountant: acc, acountant: acc }));
      expect(f).toBeInstanceOf(UnknownOptionError);
      expect((f as UnknownOptionError).fn).toBe(`${name}.fit`);
      expect((f as UnknownOptionError).suggestion).toBe('accountant');
      expect(acc.calls).toEqual([]);
      expect(acc.ledger()).toHaveLength(0);
      // Without the typo, fit reaches the budget check.
      const tiny = new SpyAccountant(1e-9);
      expect(await outcome(() => m.fit({ rng: seededRng(1), accountant: tiny }))).toBeInstanceOf(BudgetExceededError);
    });
  }

  for (const [name, make] of Object.entries(ACCOUNTANTS)) {
    it(`${name}: an unknown constructor option throws`, () => {
      expect(() => make({ histroy: [] })).toThrow(UnknownOptionError);
      expect(() => make({})).not.toThrow();
    });
  }
  it('spendParallel: an unknown option throws before anything is charged', () => {
    const acc = new SpyAccountant(100);
    expect(() => dpkit.spendParallel(acc, 'parts', [{ eps: 0.1, delta: 0 }], { recordMayMve: true } as never)).toThrow(/did you mean "recordMayMove"/);
    expect(acc.calls).toEqual([]);
  });
  it('PrivacyAccountant: an unknown budget key throws', () => {
    expect(() => new PrivacyAccountant({ eps: 1, delat: 1e-6 } as never)).toThrow(/did you mean "delta"/);
  });
});

describe('enum option values are exact everywhere', () => {
  const y = y01;
  const B = 'bogus' as never;
  const ENUMS: Record<string, () => unknown> = {
  'mean neighbors': () => dpkit.meanDP(x, { eps: 1, lower: 0, upper: 10, neighbors: B }),
  'mean typeDP': () => dpkit.meanDP(x, { eps: 1, lower: 0, upper: 10, typeDP: B }),
  'mean noise': () => dpkit.meanDP(x, { eps: 1, lower: 0, upper: 10, noise: B }),
  'smoothMedian noise': () => dpkit.smoothMedianDP(x, 1, { lower: 0, upper: 10, noise: B }),
  'smoothMedian noiseMode': () => dpkit.smoothMedianDP(x, 1, { lower: 0, upper: 10, delta: 1e-6, noiseMode: B }),
  'laplace noise': () => dpkit.laplaceMechanism(1, 1, 1, { noise: B }),
  'laplace neighbors': () => dpkit.laplaceMechanism(1, 1, 1, { neighbors: B }),
  'gauss typeDP': () => dpkit.gaussianMechanism(1, 0.5, 1e-5, 1, { typeDP: B }),
  'bl neighbors': () => dpkit.boundedLaplaceMechanism(1, 1, 0.1, 1, { lower: 0, upper: 10, neighbors: B }),
  'tl noise': () => dpkit.truncatedLaplaceMechanism(1, 1, 1e-5, 1, { noise: B }),
  'tl neighbors': () => dpkit.truncatedLaplaceMechanism(1, 1, 1e-5, 1, { neighbors: B }),
  'mixed neighbors': () => dpkit.mixedNoiseMechanism(1, 1, 1e-5, 1, { neighbors: B }),
  'exp neighbors': () => dpkit.exponentialMechanism([1,2], 1, 1, { neighbors: B }),
  'rnm noise': () => dpkit.reportNoisyMax([1,2], 1, 1, { noise: B }),
  'rnm neighbors': () => dpkit.reportNoisyMax([1,2], 1, 1, { neighbors: B }),
  'pf noise': () => dpkit.permuteAndFlip([1,2], 1, 1, { noise: B }),
  'exp noise': () => dpkit.exponentialMechanism([1,2], 1, 1, { noise: B }),
  'rnm noiseMode': () => dpkit.reportNoisyMax([1,2], 1, 1, { noiseMode: B }),
  'rnm distribution': () => dpkit.reportNoisyMax([1,2], 1, 1, { distribution: B }),
  'exp mechanism': () => dpkit.exponentialMechanism([1,2], 1, 1, { mechanism: B }),
  'b2 monotone': () => dpkit.base2ExponentialMechanism([1,2], 1, 1, { monotone: B }),
  'b2 base': () => dpkit.base2ExponentialMechanism([1,2], 1, 1, { base: B }),
  'quantile noise': () => dpkit.quantileDP(x, 0.5, { eps: 1, lower: 0, upper: 10, noise: B }),
  'pf neighbors': () => dpkit.permuteAndFlip([1,2], 1, 1, { neighbors: B }),
  'knorm noise': () => dpkit.kNormMechanism([1,2], 1, { norm: 'l1', sensitivity: 1, noise: B }),
  'knorm neighbors': () => dpkit.kNormMechanism([1,2], 1, { norm: 'l1', sensitivity: 1, neighbors: B }),
  'logistic perturbation': () => new dpkit.LogisticRegressionDP({ eps: 1, gamma: 1, perturbation: B }),
  'logistic noise': () => new dpkit.LogisticRegressionDP({ eps: 1, gamma: 1, perturbation: 'output', noise: B }),
  'svm kernel': () => new dpkit.SvmDP({ eps: 1, gamma: 1, kernel: B }),
  'nb type': () => new dpkit.NaiveBayesDP({ eps: 1, type: B }),
  'dpsgd loss': () => new dpkit.DpSgdClassifier({ loss: B, q: 0.5, steps: 2, sigma: 1, delta: 1e-5, clip: 1, learningRate: 0.1, expectedBatchSize: 2 }),
  'dpsgd noise': () => new dpkit.DpSgdClassifier({ loss: 'logistic', q: 0.5, steps: 2, sigma: 1, delta: 1e-5, clip: 1, learningRate: 0.1, expectedBatchSize: 2, noise: B }),
  'dpsgd conversion': () => new dpkit.DpSgdClassifier({ loss: 'logistic', q: 0.5, steps: 2, sigma: 1, delta: 1e-5, clip: 1, learningRate: 0.1, expectedBatchSize: 2, conversion: B }),
  'lsgd loss': () => new dpkit.LaplaceSgdDP({ loss: B, eps: 1, steps: 2, clip: 1 }),
  'lsgd noiseMode': () => new dpkit.LaplaceSgdDP({ loss: 'logistic', eps: 1, steps: 2, clip: 1, noiseMode: B }),
  'func norm': () => new dpkit.FunctionalLinearRegressionDP({ eps: 1, norm: B }),
  'func noise': () => new dpkit.FunctionalLinearRegressionDP({ eps: 1, noise: B }),
  'knl norm': () => new dpkit.KNormLogisticRegressionDP({ eps: 1, norm: B }),
  'lc method': () => new dpkit.LinearClassifierDP({ method: B, eps: 1 }),
  'lc solver': () => new dpkit.LinearClassifierDP({ method: 'opdisc', eps: 1, delta: 1e-3, solver: B }).fit(X, y),
  'cd fit noise': () => new dpkit.ProximalCoordinateDescentDP({ lambda: 0.1, epochs: 1, noise: { kind: 'laplace', eps: 1 } }).fit(X, y, { lower: [-1,-1], upper: [1,1], noise: B }),
  'opsamp noise': () => dpkit.opSampSync(() => oracleResult(), { eps: 1, delta: 1e-3, n: 4, d: 1, lipschitz: 1, diamInf: 2, diam2: 2 }, { noise: B }),
  'opdisc onUncertified': () => dpkit.opDisc(async () => oracleResult(), { eps: 1, delta: 1e-3, lipschitz: 1, radius: 1, tau: 1, d: 1 }, { onUncertified: B }),
  'acc neighbors': () => new dpkit.PrivacyAccountant({ eps: 1 }, { neighbors: B }),
  'spendParallel neighbors': () => dpkit.spendParallel(new dpkit.PrivacyAccountant({ eps: 1 }), 'x', [{eps: 0.1, delta: 0}], { neighbors: B }),
  'rdpToDp conversion': () => dpkit.rdpToDp([2], [0.1], 1e-5, { conversion: B }),
  'zcdp conversion': () => dpkit.zcdpToDp(0.1, 1e-5, { conversion: B }),
  'optNoise noise': () => dpkit.optimizedNoiseMechanism(1, Object.create(dpkit.OptimizedNoise.prototype), { noise: B }),
};
  for (const [name, call] of Object.entries(ENUMS)) {
    it(`${name}: 'bogus' is refused with a typed error naming the option`, async () => {
      const option = name.split(' ').pop()!;
      const err = await outcome(call);
      expect(err).toBeInstanceOf(InvalidArgumentError);
      expect((err as InvalidArgumentError).argument).toBe(option);
    });
  }
});

describe('the typo cases of the report', () => {
  it('meanDP with acountant: refused before any budget is checked, nothing charged', () => {
    const acc = new SpyAccountant(1);
    expect(() => meanDP(x, { eps: 5, lower: 0, upper: 100, acountant: acc } as never)).toThrow(UnknownOptionError);
    expect(acc.calls).toEqual([]);
    expect(acc.spent().eps).toBe(0);
  });

  it("quantileDP with mechanism: 'abc' is refused (quantileDP has no mechanism option)", () => {
    const acc = new SpyAccountant(1);
    expect(() => quantileDP(x, 0.25, { eps: 1, lower: 0, upper: 10, mechanism: 'abc', accountant: acc } as never)).toThrow(/quantileDP options have an unknown key "mechanism"/);
    expect(acc.calls).toEqual([]);
  });

  it('histogramDP: bins is the number of equal-width bins (an alias of a numeric breaks)', () => {
    const h = histogramDP(x, { eps: 1, lower: 0, upper: 8, bins: 2, rng: seededRng(1) });
    expect(h.counts).toHaveLength(2);
    const b = histogramDP(x, { eps: 1, lower: 0, upper: 8, breaks: 2, rng: seededRng(1) });
    expect(Array.from(h.counts)).toEqual(Array.from(b.counts));
    expect(() => histogramDP(x, { eps: 1, lower: 0, upper: 8, bins: 2, breaks: 2 })).toThrow(/give one of bins and breaks/);
    expect(() => histogramDP(x, { eps: 1, lower: 0, upper: 8, bins: [0, 4, 8] as never })).toThrow(/bins must be an integer number of bins/);
    expect(() => histogramDP(x, { eps: 1, lower: 0, upper: 8, bns: 2 } as never)).toThrow(/did you mean "bins"/);
  });

  it('enum and boolean values are exact: details "yes" and a wrong mechanism are refused before the check', () => {
    const acc = new SpyAccountant(1);
    expect(() => meanDP(x, { eps: 1, ...bounds, details: 'yes', accountant: acc } as never)).toThrow(/details must be a boolean/);
    expect(() => meanDP(x, { eps: 1, ...bounds, mechanism: 'abc', accountant: acc } as never)).toThrow(/mechanism/);
    expect(() => laplaceMechanism(1, 1, 1, { details: 1, accountant: acc } as never)).toThrow(/details must be a boolean/);
    expect(() => reportNoisyMax([1, 2], 1, 1, { monotone: 'no', accountant: acc } as never)).toThrow(/monotone must be a boolean/);
    expect(() => meanDP(x, { eps: 1, ...bounds, accountant: {} } as never)).toThrow(/must be a PrivacyAccountant/);
    expect(acc.calls).toEqual([]);
  });

  it('options must be plain objects (not arrays, not null)', () => {
    expect(() => meanDP(x, [] as never)).toThrow(/meanDP options must be an object/);
    expect(() => meanDP(x, null as never)).toThrow(/meanDP options must be an object/);
    expect(() => laplaceMechanism(1, 1, 1, [] as never)).toThrow(/laplaceMechanism options must be an object/);
    expect(() => new LogisticRegressionDP(null as never)).toThrow(InvalidArgumentError);
  });
});

describe('did-you-mean', () => {
  it('restricted Damerau-Levenshtein distance', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('acountant', 'accountant')).toBe(1);
    expect(editDistance('accuontant', 'accountant')).toBe(1); // one transposition
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('ca', 'abc')).toBe(3); // OSA, not unrestricted (which gives 2)
  });

  it('suggests within distance 2 (1 for short keys), case-insensitively, else nothing', () => {
    const known = ['eps', 'delta', 'accountant', 'neighbors', 'details', 'lower', 'upper'];
    expect(suggestKey('acountant', known)).toBe('accountant');
    expect(suggestKey('Neighbours', known)).toBe('neighbors');
    expect(suggestKey('epz', known)).toBe('eps');
    expect(suggestKey('ep', known)).toBe('eps');
    expect(suggestKey('xyz', known)).toBeUndefined();
    expect(suggestKey('budget', known)).toBeUndefined();
    expect(suggestKey('lowr', known)).toBe('lower');
  });

  it('a very long unknown key is shortened in the message', () => {
    const key = 'k'.repeat(500);
    const err = (() => {
      try {
        laplaceMechanism(1, 1, 1, { [key]: 1 } as never);
      } catch (e) {
        return e as UnknownOptionError;
      }
      throw new Error('no error');
    })();
    expect(err.message.length).toBeLessThan(300);
  });
});
