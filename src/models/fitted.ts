/**
 * The one "must be fitted" guard of the models: prediction (post-processing of a released model)
 * needs the released coefficients; before `fit` a typed error names the model.
 */
import { InvalidArgumentError } from '../errors.js';

/** `value` (the released coefficients), or an InvalidArgumentError "<model> must be fitted before predict". */
export function requireFitted<T>(value: T | undefined, model: string, rule = 'must be fitted before predict'): T {
  assertFitted(value !== undefined, model, rule);
  return value;
}

/** Narrows `fitted` (e.g. `this.coeff !== undefined`), or throws "<model> must be fitted before predict". */
export function assertFitted(fitted: unknown, model: string, rule = 'must be fitted before predict'): asserts fitted {
  if (!fitted) throw new InvalidArgumentError(model, rule);
}
