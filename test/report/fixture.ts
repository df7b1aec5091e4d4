/**
 * A hand-made report input that exercises every part of the report: large and small numbers, a
 * two-way table, a regularised regression with an intercept far larger than its slopes, quantiles
 * without intervals, a failed release, names with control characters and markup, the public
 * assumptions (bounds, levels, SQL) of a run.
 */
import type { ReportInput } from '../../src/report/html.js';
import type { ReportRelease } from '../../src/report/release.js';

const base = { eps: 0.1, delta: 0, neighbors: 'bounded' as const, charged: { eps: 0.1, delta: 0, neighbors: 'bounded' as const }, level: 0.95, notes: [] as string[] };

export const FIXTURE_RESULTS: ReportRelease[] = [
  { ...base, name: 'rows', stat: 'count', columns: [], mechanism: 'laplace', sensitivity: 1, scale: 10, value: 20640, interval: [20610, 20670] },
  { ...base, name: 'mean median_house_value', stat: 'mean', columns: ['median_house_value'], mechanism: 'laplace', sensitivity: 24.2, scale: 242, value: 206855.8, interval: [206130.1, 207581.5] },
  { ...base, name: 'mean of a column with a rather long name that wraps: median_income_in_tens_of_thousands', stat: 'mean', columns: ['median_income'], mechanism: 'gaussian (analytic)', sensitivity: 0.0007, scale: 0.0021, value: 3.8707, interval: [3.866, 3.8754], delta: 1e-6 },
  { ...base, name: 'sd of latitude', stat: 'sd', columns: ['latitude'], mechanism: 'laplace', sensitivity: 0.5, scale: 5, value: 2.13, interval: [0, 17.1], notes: ['square root of the private variance (clamped at 0)'] },
  { ...base, name: 'median age', stat: 'quantile', columns: ['housing_median_age'], mechanism: 'exponential', sensitivity: 1, scale: 20, value: 29, notes: ['Smith (2011) exponential mechanism; no data-independent interval'] },
  {
    ...base,
    name: 'quartiles of median_house_value',
    stat: 'quantile',
    columns: ['median_house_value'],
    mechanism: 'exponential',
    sensitivity: 1,
    scale: 60,
    labels: ['q25', 'q50', 'q75'],
    values: [119600, 179700, 264725],
    intervals: [null, null, null],
    notes: ['Smith (2011) exponential mechanism, eps 0.0333 per quantile; no data-independent interval is shown'],
  },
  {
    ...base,
    name: 'histogram of median_house_value',
    stat: 'histogram',
    columns: ['median_house_value'],
    mechanism: 'laplace',
    sensitivity: 2,
    scale: 20,
    labels: ['15000–112500', '112500–210000', '210000–307500', '307500–405000', '405000–500001'],
    values: [4990, 6712, 4410, 2338, 2190],
    intervals: [
      [4929.6, 5050.4],
      [6651.6, 6772.4],
      [4349.6, 4470.4],
      [2277.6, 2398.4],
      [2129.6, 2250.4],
    ],
    edges: [15000, 112500, 210000, 307500, 405000, 500001],
    notes: ['bins (a, b]'],
  },
  {
    ...base,
    name: 'ocean_proximity × income_band',
    stat: 'table',
    columns: ['ocean_proximity', 'income_band'],
    mechanism: 'laplace',
    sensitivity: 2,
    scale: 20,
    labels: ['<1H OCEAN × low', '<1H OCEAN × high', 'INLAND × low', 'INLAND × high', 'NEAR BAY × low', 'NEAR BAY × high'],
    values: [4210, 4926, 5133, 1418, 1012, 1278],
    intervals: [
      [4149, 4271],
      [4865, 4987],
      [5072, 5194],
      [1357, 1479],
      [951, 1073],
      [1217, 1339],
    ],
    notes: ['every cell of the cross product of the public levels is released'],
  },
  {
    ...base,
    name: 'linear regression of median_house_value',
    stat: 'linear_regression',
    columns: ['median_income', 'housing_median_age', 'median_house_value'],
    eps: 0.5,
    delta: 1e-6,
    neighbors: 'unbounded',
    charged: { eps: 1, delta: 2.7e-6, neighbors: 'bounded' },
    mechanism: 'objective perturbation',
    sensitivity: null,
    scale: null,
    labels: ['intercept', 'median_income', 'housing_median_age'],
    values: [169600, 7851, -40.2],
    intervals: [null, null, null],
    notes: ['Kifer, Smith & Thakurta (2012) objective perturbation, gamma 1; coefficients in the units of the inputs; no data-independent interval'],
  },
  {
    ...base,
    name: 'logistic regression with a coefficient near zero',
    stat: 'logistic_regression',
    columns: ['median_income', 'high_value'],
    mechanism: 'objective perturbation',
    sensitivity: null,
    scale: null,
    labels: ['median_income'],
    values: [1.2e-5],
    intervals: [null],
    notes: ['a coefficient near zero: its axis ticks are labelled like 1.25×10^-5, the widest tick labels the report draws'],
  },
  { ...base, name: 'evil\u001b[31m <script>alert(1)</script> name\u202e', stat: 'count', columns: [], mechanism: 'laplace', sensitivity: 1, scale: 10, value: -3, interval: [-33, 27] },
];

export const FIXTURE_INPUT: ReportInput = {
  title: 'California Housing — private summary',
  dataDescription: 'data/california_housing.csv (CSV)',
  generated: '2026-11-25T12:00:00.000Z',
  ledger: { path: 'out/ledger', budget: { eps: 10, delta: 1e-5 }, neighbors: 'bounded', spentBefore: { eps: 2, delta: 0 }, spentAfter: { eps: 4.1, delta: 3.7e-6 } },
  results: FIXTURE_RESULTS,
  failed: { name: 'mean total_rooms', status: 'failed (charged)', error: 'failed (charged): the data could not be read as the schema declares them', charged: { eps: 0.1, delta: 0 } },
  notRun: [{ name: 'logistic model', eps: 0.5, delta: 0 }],
  warnings: [],
  assumptions: {
    dpkit: '0.1.0',
    neighbors: 'bounded',
    neighborRelation: 'replace-one',
    source: { sql: "SELECT *\nFROM read_csv('data/california_housing.csv')\nWHERE ocean_proximity <> 'ISLAND'" },
    schema: 'examples/housing.schema.yaml',
    columns: {
      median_house_value: { type: 'numeric', lower: 15000, upper: 500001, missing: 'drop' },
      median_income: { type: 'numeric', lower: 0.5, upper: 15.0001, missing: 'drop' },
      ocean_proximity: { type: 'categorical', levels: ['<1H OCEAN', 'INLAND', 'NEAR BAY'], missing: 'drop' },
    },
  },
};
