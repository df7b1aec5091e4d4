/**
 * Runs a check on a data file opened both ways DuckDbEngine opens a text file: parsed into an
 * in-memory table (the default below the size limit) and as a lazy view (`materializeBelowBytes: 0`,
 * as a file over the limit), for the tests that the two readings agree.
 */
import { DataEngine } from '../../src/node/data.js';

/** Opens `f` parsed into memory and lazily (a view); runs `check` on both, closing each engine after. */
export async function inMemoryAndLazily(f: string, check: (e: DataEngine) => Promise<void>, opts: { numericColumns?: string[] } = {}): Promise<void> {
  for (const materializeBelowBytes of [undefined, 0]) {
    const e = await DataEngine.open({ path: f }, { ...opts, ...(materializeBelowBytes === undefined ? {} : { materializeBelowBytes }) });
    try {
      await check(e);
    } finally {
      e.close();
    }
  }
}
