/**
 * `dpkit/internals`: every building block of dpkit, including what the root entry (`dpkit`) does
 * not export: validation helpers, samplers, lattice and grid helpers, LP, matrix and geometry
 * helpers, the internals of the optimisers and of the oracle releases. For tests, benchmarks and
 * research code; these names may change between minor versions. Browser-safe like the root.
 *
 * @packageDocumentation
 */
export * from './errors.js';
export * from './validation.js';
export * from './release.js';
export * from './privacy-unit.js';
export * from './random/index.js';
export * from './accounting/index.js';
export * from './mechanisms/index.js';
export * from './statistics/index.js';
export * from './models/index.js';
export * from './optimize/index.js';
// Types of the building blocks that the area entries above do not list.
export type { CommonMechanismOptions, MechanismPlan, PlanArgs, VectorArgs } from './mechanisms/vector-args.js';
export type { Method as OptimizeNoiseMethod } from './mechanisms/optimal-noise/engine.js';
export type { DataDependentOptionsRelease } from './mechanisms/optimal-noise/data-dependent.js';
export type { CellDensity } from './mechanisms/optimal-noise/verify.js';
export type { Discretization } from './accounting/pld/discretize.js';
export type { Exact, OptionSpec, OptionRule, KeysOfUnion } from './options.js';
export type { PublicSizeOption } from './statistics/common.js';
export type { StatPlan, ReleasePlan, ClampedRange, NoiseDescription } from './statistics/plan.js';
export type { ErmProblem } from './models/erm/objective.js';
