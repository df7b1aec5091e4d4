/**
 * The privacy unit of a guarantee: what one neighbouring step adds, removes or replaces.
 *
 * Without a unit (the default, "row") neighbouring data sets differ in one row. With a unit column
 * (e.g. the student `s` of event-level ratings) they differ in ALL rows of one unit: add/remove
 * ('unbounded') one unit with every row it holds, or replace ('bounded') every row of one unit by
 * other rows of the same unit. A release over such data is private per unit only when its
 * sensitivity is computed for a whole unit, which contribution bounding makes finite (at most
 * `maxPartitions` groups and `maxRows` rows per group per unit; see
 * src/statistics/contribution-bounding.ts).
 */
import type { Guarantee } from './release.js';
import { InvalidArgumentError } from './errors.js';

/**
 * The unit of a guarantee: its `privacyUnit`, or "row" when absent.
 *
 * @param g A guarantee.
 * @returns Its privacy unit ("row" unless another unit is stated).
 * @throws Never.
 * @example
 * ```ts
 * import { privacyUnitOf } from 'dpkit';
 * console.log(privacyUnitOf({ eps: 1, delta: 0, neighbors: 'unbounded' })); // row
 * ```
 */
export function privacyUnitOf(g: Guarantee): string {
  return g.privacyUnit ?? 'row';
}

/** A unit name: a non-empty string of at most 64 characters without control characters. */
export function checkPrivacyUnit(unit: unknown, name = 'privacyUnit'): string {
  if (typeof unit !== 'string' || unit.length === 0 || unit.length > 64 || /[\u0000-\u001f\u007f]/.test(unit)) {
    throw new InvalidArgumentError(name, 'must be a non-empty name of at most 64 printable characters', unit);
  }
  return unit;
}

/**
 * A guarantee in words, e.g. "(1, 1e-6)-DP per student (add/remove one student)" or
 * "1-DP per row (replace one row)".
 *
 * @param g A guarantee (eps, delta, neighbours, privacy unit), e.g. a release's `guarantee`.
 * @returns One line for people, e.g. "1-DP per row (replace one row)".
 * @throws Never.
 * @example
 * ```ts
 * import { formatGuarantee } from 'dpkit';
 * console.log(formatGuarantee({ eps: 1, delta: 0, neighbors: 'bounded' }));
 * ```
 */
export function formatGuarantee(g: Guarantee): string {
  const unit = privacyUnitOf(g);
  const budget = g.delta > 0 ? `(${g.eps}, ${g.delta})-DP` : `${g.eps}-DP`;
  const step = g.neighbors === 'unbounded' ? `add/remove one ${unit}` : `replace one ${unit}`;
  return `${budget} per ${unit} (${step})`;
}
