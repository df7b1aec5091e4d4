import { expect } from 'vitest';
import { SchemaError } from '../../src/node/analysis.js';

/** The message of the SchemaError that `f` throws (fails the test if it throws nothing or another error). */
export function schemaErrorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(SchemaError);
    return (e as Error).message;
  }
  throw new Error('expected a SchemaError');
}
