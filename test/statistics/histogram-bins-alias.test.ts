/**
 * histogramDP's word is `breaks`; `bins` (a number of bins) is a deprecated alias that still works
 * and warns once per process, naming `breaks`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { histogramDP } from '../../src/statistics/histogram.js';
import { seededRng } from '../../src/random/rng.js';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';

const x = [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 1, 2];
const base = { eps: 1, lower: 0, upper: 8 } as const;

describe('histogramDP: bins is a warned alias of breaks', () => {
  afterEach(() => vi.restoreAllMocks());

  it('breaks does not warn', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    histogramDP(x, { ...base, breaks: 4, rng: seededRng(1), accountant: null });
    expect(warn).not.toHaveBeenCalled();
  });

  it('bins gives the same release as breaks and warns once, naming breaks', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const viaBreaks = histogramDP(x, { ...base, breaks: 4, rng: seededRng(7), accountant: null });
    expect(warn).not.toHaveBeenCalled();
    const viaBins = histogramDP(x, { ...base, bins: 4, rng: seededRng(7), accountant: null });
    expect(viaBins).toEqual(viaBreaks);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/'bins' is a deprecated alias; use 'breaks'/);
    histogramDP(x, { ...base, bins: 2, rng: seededRng(8), accountant: null });
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('the warning is about the option only: a refused bins value still spends nothing and warns nothing more', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const acc = new PrivacyAccountant({ eps: 1 });
    expect(() => histogramDP(x, { ...base, bins: 0, accountant: acc })).toThrow(/breaks/);
    expect(() => histogramDP(x, { ...base, bins: 2, breaks: 2, accountant: acc })).toThrow(/give one of bins and breaks/);
    expect(acc.remaining().eps).toBe(1);
    expect(warn).not.toHaveBeenCalled();
  });
});
