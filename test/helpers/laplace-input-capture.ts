/**
 * Records the values handed to the Laplace noise adder (`addLaplaceNoise`, the released pre-noise
 * values), for the tests that check how far neighbouring data sets move them against the sensitivity
 * a release states. A test file mocks the noise module with it:
 *
 *   vi.mock('../../src/mechanisms/noise.js', async (importOriginal) =>
 *     (await import('../helpers/laplace-input-capture.js')).capturingLaplaceInputs(await importOriginal()));
 *   afterEach(clearLaplaceInputs);
 *
 * (vi.mock is hoisted above the imports, hence the helper is imported inside the factory; it is the
 * same module instance as the test's own import.)
 */
import type * as noise from '../../src/mechanisms/noise.js';

/** Every value handed to the adder, in call order (the calls' vectors concatenated). */
export const laplaceInputs: number[] = [];
/** The vector of each call to the adder, in call order. */
export const laplaceCalls: number[][] = [];

/** Empties both records (run after each test). */
export function clearLaplaceInputs(): void {
  laplaceInputs.length = 0;
  laplaceCalls.length = 0;
}

/** The noise module with `addLaplaceNoise` recording its input before adding the noise as before. */
export function capturingLaplaceInputs(orig: typeof noise): typeof noise {
  return {
    ...orig,
    addLaplaceNoise: ((values: ArrayLike<number>, ...rest: unknown[]) => {
      const v = Array.from(values);
      laplaceInputs.push(...v);
      laplaceCalls.push(v);
      return (orig.addLaplaceNoise as (...a: unknown[]) => Float64Array)(values, ...rest);
    }) as typeof noise.addLaplaceNoise,
  };
}
