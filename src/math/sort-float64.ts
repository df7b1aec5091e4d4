/**
 * In-place ascending sort of a Float64Array by LSD radix sort on the IEEE-754 bit patterns (four
 * 16-bit digits), the order of `Float64Array.prototype.sort` for every non-NaN value (-Infinity first,
 * -0 before +0, +Infinity last). The classical order-preserving map: a non-negative double's bits with
 * the sign bit set, a negative double's bits all inverted; unsigned order of the mapped 64-bit keys is
 * then numeric order (IEEE-754 layout). A digit on which every key agrees is skipped, so data in a
 * narrow range cost fewer passes. NaN is not supported (the callers clip their data first).
 * Small arrays use the built-in sort.
 */
export function sortFloat64(a: Float64Array): Float64Array {
  const n = a.length;
  if (n < 4096) return a.sort();
  // Keys as (hi, lo) 32-bit words; moved as words, never as doubles (a key may be a NaN pattern).
  const words = new Uint32Array(a.buffer, a.byteOffset, 2 * n); // little-endian: lo at 2i, hi at 2i + 1
  let lo = new Uint32Array(n);
  let hi = new Uint32Array(n);
  const little = new Uint8Array(Float64Array.of(1).buffer)[7] === 0x3f;
  const L = little ? 0 : 1;
  const H = 1 - L;
  const counts = new Uint32Array(4 * 65536);
  for (let i = 0; i < n; i++) {
    let h = words[2 * i + H]!;
    let l = words[2 * i + L]!;
    if (h >>> 31) {
      h = ~h >>> 0;
      l = ~l >>> 0;
    } else h = (h | 0x80000000) >>> 0;
    hi[i] = h;
    lo[i] = l;
    counts[l & 0xffff]!++;
    counts[65536 + (l >>> 16)]!++;
    counts[131072 + (h & 0xffff)]!++;
    counts[196608 + (h >>> 16)]!++;
  }
  let lo2 = new Uint32Array(n);
  let hi2 = new Uint32Array(n);
  const offsets = new Uint32Array(65536);
  for (let pass = 0; pass < 4; pass++) {
    const base = pass * 65536;
    // Skip a digit on which all keys agree.
    let skip = false;
    for (let d = 0; d < 65536; d++) {
      const c = counts[base + d]!;
      if (c === n) skip = true;
      if (c !== 0) break;
    }
    if (skip) continue;
    let sum = 0;
    for (let d = 0; d < 65536; d++) {
      offsets[d] = sum;
      sum += counts[base + d]!;
    }
    const src = pass < 2 ? lo : hi;
    const shift = pass % 2 === 0 ? 0 : 16;
    for (let i = 0; i < n; i++) {
      const d = (src[i]! >>> shift) & 0xffff;
      const k = offsets[d]!++;
      lo2[k] = lo[i]!;
      hi2[k] = hi[i]!;
    }
    [lo, lo2] = [lo2, lo];
    [hi, hi2] = [hi2, hi];
  }
  for (let i = 0; i < n; i++) {
    let h = hi[i]!;
    let l = lo[i]!;
    if (h >>> 31) h = (h & 0x7fffffff) >>> 0;
    else {
      h = ~h >>> 0;
      l = ~l >>> 0;
    }
    words[2 * i + H] = h;
    words[2 * i + L] = l;
  }
  return a;
}
