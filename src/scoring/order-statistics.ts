// Quantiles of the feature extractors' samples. A median is found by selection, not by sorting: the
// sorts were 8.5 % of sessionFeatures' profile on 2,000-signal sessions, selection is 3 %, and a session
// takes about 3 % less time (2026-11-29, the median of ten pairs of separate processes). Selection returns
// the value a sort puts at the same place, so the features, and the model trained on them, keep their bits.

/** the q-quantile of sorted values, linear between neighbours; 0 when there are none */
export function quantile(sorted: Float64Array | number[], q: number): number {
  if (sorted.length === 0) return 0
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.min(sorted.length - 1, lo + 1)
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo)
}

export const sortedOf = (a: readonly number[]) => Float64Array.from(a).sort()

/**
 * The k-th smallest (from 0) of a[0, n), which it reorders: the value a sort would put at k (but for a
 * zero's sign: a sort puts −0 first), with no smaller value after k. Hoare's selection, linear on average.
 * The values hold no NaN (a sort puts NaN last; `<` cannot place it). The gaps come from the client, and
 * a crafted sequence can make median-of-three pivots quadratic: after `rounds` partitions (about twice
 * log2 n) what is left of the range is sorted instead, so the worst case stays a sort's (introselect).
 */
export function selectKth(a: Float64Array, n: number, k: number, rounds = 2 * (32 - Math.clz32(n)) + 4): number {
  let lo = 0
  let hi = n - 1
  while (hi > lo) {
    if (rounds-- <= 0) {
      // everything before lo is no larger and everything after hi no smaller than this range's values
      a.subarray(lo, hi + 1).sort()
      break
    }
    // the median of the first, middle and last values: sorted or equal runs do not make it quadratic
    const x = a[lo]
    const y = a[(lo + hi) >> 1]
    const pivot = Math.max(Math.min(x, y), Math.min(Math.max(x, y), a[hi]))
    let i = lo
    let j = hi
    while (i <= j) {
      while (a[i] < pivot) i++
      while (a[j] > pivot) j--
      if (i <= j) {
        const v = a[i]
        a[i] = a[j]
        a[j] = v
        i++
        j--
      }
    }
    // a[lo, j] ≤ pivot ≤ a[i, hi], and what lies between equals the pivot
    if (k <= j) hi = j
    else if (k >= i) lo = i
    else break
  }
  return a[k]
}

let scratch = new Float64Array(4096)

/** quantile(sortedOf(a[0, n)), 0.5), the same bits, without sorting */
export function median(a: ArrayLike<number>, n = a.length): number {
  if (n === 0) return 0
  if (scratch.length < n) scratch = new Float64Array(Math.max(n, 2 * scratch.length))
  const b = scratch
  let nan = false
  for (let i = 0; i < n; i++) {
    b[i] = a[i]
    if (Number.isNaN(b[i])) nan = true
  }
  // a NaN cannot be placed by `<`: sort, as before, which puts it last
  if (nan) return quantile(b.subarray(0, n).sort(), 0.5)
  const pos = (n - 1) * 0.5
  const lo = Math.floor(pos)
  const low = selectKth(b, n, lo)
  // the next value up is the smallest of those after lo
  let high = low
  if (lo + 1 < n) {
    high = b[lo + 1]
    for (let i = lo + 2; i < n; i++) if (b[i] < high) high = b[i]
  }
  return low + (high - low) * (pos - lo)
}
