import { expect } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';

/** The argument named by the InvalidArgumentError that `f` throws (fails the test if it throws nothing or another error). */
export function argumentOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidArgumentError);
    return (e as InvalidArgumentError).argument;
  }
  throw new Error('expected an InvalidArgumentError');
}
