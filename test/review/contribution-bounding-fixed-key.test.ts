import { describe, expect, it } from 'vitest';
import { hashKeyFromBytes } from '../../src/random/siphash.js';
import { boundContributionsWithKey, type Ident } from '../../src/statistics/contribution-bounding.js';

/**
 * The privacy argument of contribution bounding: for EVERY fixed key, the rows kept for a unit depend
 * only on that unit's own rows, so on neighbours that differ in all rows of one unit u the truncated
 * data differ only in u's kept rows. Removing u's rows shifts the table positions of every later
 * row, so the row ranking must not hash the table position.
 */
describe('review: contribution bounding keeps the same rows of the other units for a fixed key', () => {
  // Unit 'u' (removed in the neighbour) comes first; 'v' and 'w' follow, several rows per group.
  const rowsOf = (withU: boolean) => {
    const units: Ident[] = [];
    const groups: Ident[] = [];
    const tag: string[] = []; // a row's identity independent of its position: unit/group/ordinal
    const add = (u: string, g: string, n: number) => {
      for (let j = 0; j < n; j++) {
        units.push(u);
        groups.push(g);
        tag.push(`${u}/${g}/${j}`);
      }
    };
    if (withU) {
      add('u', 'a', 7);
      add('u', 'b', 3);
    }
    add('v', 'a', 12);
    add('w', 'a', 5);
    add('v', 'b', 9);
    add('w', 'c', 4);
    return { units, groups, tag };
  };

  it('for 20 fixed keys, the kept rows of v and w are the same with and without u', () => {
    const D = rowsOf(true);
    const D1 = rowsOf(false);
    for (let s = 0; s < 20; s++) {
      const key = hashKeyFromBytes(Array.from({ length: 16 }, (_, i) => (s * 37 + i * 11 + 5) & 255));
      const keptTags = (d: typeof D) =>
        Array.from(boundContributionsWithKey(d.units, d.groups, { maxPartitions: 1, maxRows: 2 }, key), (i) => d.tag[i]!)
          .filter((t) => !t.startsWith('u/'))
          .sort();
      expect(keptTags(D), `key ${s}`).toEqual(keptTags(D1));
    }
  });
});
