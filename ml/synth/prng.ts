// Seeded PRNG (mulberry32) and the distributions the generators draw from.
// Everything synthetic is derived from these, so one seed fixes a data set.

export interface Rng {
  /** uniform in [0, 1) */
  next(): number
  uniform(a: number, b: number): number
  /** integer in [a, b] */
  int(a: number, b: number): number
  normal(mean?: number, sd?: number): number
  /** log-normal with the given median and log-space sigma */
  logNormal(median: number, sigma: number): number
  chance(p: number): boolean
  pick<T>(items: readonly T[]): T
}

export function createRng(seed: number): Rng {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const normal = (mean = 0, sd = 1) => {
    const u = 1 - next()
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next())
  }
  return {
    next,
    uniform: (a, b) => a + (b - a) * next(),
    int: (a, b) => a + Math.floor(next() * (b - a + 1)),
    normal,
    logNormal: (median, sigma) => median * Math.exp(sigma * normal()),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
  }
}

/** a well-mixed 32-bit seed for item `i` of a stream, so items can be generated independently */
export function deriveSeed(seed: number, stream: string, i: number): number {
  let h = (seed ^ 0x9e3779b9) >>> 0
  for (const ch of `${stream}:${i}`) {
    h = Math.imul(h ^ ch.charCodeAt(0), 0x85ebca6b) >>> 0
    h ^= h >>> 13
  }
  h = Math.imul(h ^ (h >>> 16), 0xc2b2ae35) >>> 0
  return (h ^ (h >>> 16)) >>> 0
}
