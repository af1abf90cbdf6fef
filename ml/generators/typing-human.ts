// Human typing generated to the real figures of 1,000 typists (README of the
// real data; 136M Keystrokes, browser typing test, Date.now() resolution).
//
// A session first draws its profile: the seven per-session figures, each from
// the quantile function interpolated between the README's percentiles, drawn
// jointly through a Gaussian copula so that natural dependencies hold (fast
// typists have short latencies, many presses per second and more rollover).
// Then it builds a key stream that has exactly that profile:
//  - latencies: log-normal, with longer ones around spaces and fast
//    backspace runs, then stretched in log space around their median until
//    their median and CV (≤ 2 s) are the profile's;
//  - long pauses (reading the next sentence) fill the time the profile's
//    presses per second leave over;
//  - holds: log-normal, matched to the profile's median and CV the same way,
//    then arranged over the presses so that the profile's share of presses
//    roll over into the next key (hold longer than the next latency);
//  - times floored to integer ms, and then the profile's share of sub-2 ms
//    gaps made by putting the closest event pairs into the same or next
//    millisecond, as keyboards that report several changes in one USB poll do.
import type { KeyClass, Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'
import { FIGURE_NAMES, type FigureName, PERCENTILE_LEVELS, REAL_TYPING_PERCENTILES } from './figures'
import { clamp, normalCdf } from './random'

export type TypingProfile = Record<FigureName, number>

/** rank correlations of the copula, in FIGURE_NAMES order; guesses from how typing works, not measured */
const CORRELATION: number[][] = (() => {
  const pairs: [FigureName, FigureName, number][] = [
    ['holdMedian', 'holdCv', 0.2],
    ['holdMedian', 'latencyMedian', 0.35],
    ['holdMedian', 'rollover', 0.3],
    ['holdMedian', 'pressesPerSecond', -0.3],
    ['holdCv', 'latencyCv', 0.2],
    ['holdCv', 'rollover', 0.3],
    ['latencyMedian', 'latencyCv', 0.1],
    ['latencyMedian', 'rollover', -0.55],
    ['latencyMedian', 'gapsUnder2ms', -0.2],
    ['latencyMedian', 'pressesPerSecond', -0.96],
    ['latencyCv', 'pressesPerSecond', -0.3],
    ['latencyCv', 'rollover', 0.3],
    ['rollover', 'gapsUnder2ms', 0.3],
    ['rollover', 'pressesPerSecond', 0.45],
    ['gapsUnder2ms', 'pressesPerSecond', 0.15],
  ]
  const m: number[][] = FIGURE_NAMES.map((_, i) => FIGURE_NAMES.map((_, j) => (i === j ? 1 : 0)))
  for (const [a, b, r] of pairs) {
    const i = FIGURE_NAMES.indexOf(a)
    const j = FIGURE_NAMES.indexOf(b)
    m[i]![j] = r
    m[j]![i] = r
  }
  return m
})()

function cholesky(m: number[][]): number[][] | null {
  const n = m.length
  const l = m.map(() => new Array<number>(n).fill(0))
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = m[i]![j]!
      for (let k = 0; k < j; k++) s -= l[i]![k]! * l[j]![k]!
      if (i === j) {
        if (s <= 1e-9) return null
        l[i]![i] = Math.sqrt(s)
      } else l[i]![j] = s / l[j]![j]!
    }
  }
  return l
}

/** Pearson correlation of the latent normals that gives a rank correlation r: 2 sin(π r / 6) */
const CHOLESKY = (() => {
  for (let shrink = 1; shrink > 0; shrink -= 0.05) {
    const latent = CORRELATION.map((row, i) => row.map((r, j) => (i === j ? 1 : 2 * Math.sin((Math.PI * r * shrink) / 6))))
    const l = cholesky(latent)
    if (l) return l
  }
  throw new Error('no positive-definite correlation')
})()

/** the quantile function through the README percentiles, linear between them and extended linearly past p1/p99 */
export function realQuantile(name: FigureName, u: number): number {
  const q = REAL_TYPING_PERCENTILES[name]
  const p = PERCENTILE_LEVELS
  let i = 0
  while (i < p.length - 2 && u > p[i + 1]!) i++
  const v = q[i]! + ((u - p[i]!) * (q[i + 1]! - q[i]!)) / (p[i + 1]! - p[i]!)
  // past the outer percentiles: at most half the end segment's width further out
  const lo = q[0]! - (q[1]! - q[0]!) / 2
  const hi = q[6]! + (q[6]! - q[5]!) / 2
  return clamp(v, Math.max(0, lo), hi)
}

/** a typist: the seven figures, drawn jointly */
export function sampleTypingProfile(rng: Rng): TypingProfile {
  const z = FIGURE_NAMES.map(() => rng.normal())
  const out = {} as TypingProfile
  FIGURE_NAMES.forEach((name, i) => {
    let s = 0
    for (let k = 0; k <= i; k++) s += CHOLESKY[i]![k]! * z[k]!
    out[name] = realQuantile(name, normalCdf(s))
  })
  return out
}

/** text as key classes: words, spaces, Shift before some word starts, typos corrected with backspace runs */
function keySequence(rng: Rng, presses: number): KeyClass[] {
  // per-typist error and Shift habits around the README's overall mix (back 4.9 %, mod 3.8 %)
  const errorRate = clamp(rng.logNormal(0.032, 0.6), 0.002, 0.12)
  const shiftRate = clamp(rng.logNormal(0.27, 0.5), 0.02, 0.8)
  const out: KeyClass[] = []
  let word = 0
  let wordLength = 1 + Math.round(rng.logNormal(3.6, 0.45))
  while (out.length < presses) {
    if (word >= wordLength) {
      out.push('space')
      word = 0
      wordLength = 1 + Math.round(rng.logNormal(3.6, 0.45))
      continue
    }
    if (word === 0 && rng.chance(shiftRate)) out.push('mod')
    out.push(rng.chance(0.004) ? 'digit' : 'char')
    word++
    if (rng.chance(errorRate)) {
      // a typo seen late: a few more keys, then as many backspaces, then the fix
      const extra = rng.int(0, 2)
      for (let i = 0; i < extra; i++) out.push('char')
      const back = extra + 1
      for (let i = 0; i < back; i++) out.push('back')
      for (let i = 0; i < back; i++) out.push('char')
    }
    if (rng.chance(0.0012)) out.push('nav')
  }
  return out.slice(0, presses)
}

/**
 * Values with a given p-quantile (`level`) and CV of the selected ones
 * (`target`): log-normal base values stretched in log space (up to σ ≈ 1.4, a tail past `cap` folded back under it),
 * and past that a growing share (up to 35 %) of long ones, log-uniform
 * between `long[0]` × level and `long[1]` ms (hesitations, keys held on),
 * which is how real CVs above ~1 arise. One knob θ, found by bisection.
 */
function shaped(
  rng: Rng,
  base: readonly number[],
  target: number,
  level: number,
  p: number,
  select: (v: number) => boolean,
  long: [number, number],
  cap: number
): number[] {
  const n = base.length
  const logs = Float64Array.from(base, Math.log)
  const u = Float64Array.from(base, () => rng.next())
  const r = Float64Array.from(base, () => rng.next())
  const r2 = Float64Array.from(base, () => rng.next())
  const lo = long[0] * level
  const hi = Math.max(lo * 1.2, long[1])
  const out = new Float64Array(n)
  const kept = new Float64Array(n)
  // typed arrays and plain loops: this runs ~80 times per call
  const build = (theta: number) => {
    const s = Math.min(theta, 1) * 3.2
    const w = Math.max(0, theta - 1) * 0.35
    let k = 0
    for (let i = 0; i < n; i++) if (u[i]! >= w) kept[k++] = Math.exp(s * logs[i]!)
    // long values lie above the quantile, so it is a higher quantile of the kept ones
    const sorted = kept.slice(0, k).sort()
    const h = (k - 1) * clamp((p * n) / Math.max(1, k), 0, 1)
    const j = Math.floor(h)
    const q = k ? sorted[j]! + (h - j) * (sorted[Math.min(j + 1, k - 1)]! - sorted[j]!) : 1
    for (let i = 0; i < n; i++) {
      const v = u[i]! < w ? lo * (hi / lo) ** r[i]! : (Math.exp(s * logs[i]!) * level) / q
      // a stretched tail past `cap` folds back below it: within a sentence nobody stops for minutes
      out[i] = v > cap ? cap * (0.5 + 0.5 * r2[i]!) : v
    }
    return out
  }
  const miss = (theta: number) => {
    const v = build(theta)
    let c = 0
    let sum = 0
    let sq = 0
    for (let i = 0; i < n; i++) {
      const x = v[i]!
      if (!select(x)) continue
      c++
      sum += x
      sq += x * x
    }
    const mean = sum / c
    return Math.sqrt(Math.max(0, sq / c - mean * mean)) / mean - target
  }
  // a grid first (the CV need not rise monotonically with θ once long values dominate), then bisection around the best
  let best = 0.01
  let bestMiss = Math.abs(miss(best))
  for (let theta = 0.05; theta <= 2; theta += 0.04) {
    const m = Math.abs(miss(theta))
    if (m < bestMiss) [best, bestMiss] = [theta, m]
  }
  let a = Math.max(0.01, best - 0.04)
  let b = Math.min(2, best + 0.04)
  const ma = miss(a)
  const mb = miss(b)
  if (Math.sign(ma) !== Math.sign(mb)) {
    const rising = mb > ma
    for (let k = 0; k < 14; k++) {
      const mid = (a + b) / 2
      if (miss(mid) < 0 === rising) a = mid
      else b = mid
    }
    best = (a + b) / 2
  }
  return Array.from(build(best))
}

export type HumanTypingOptions = {
  /** the typist; drawn from the real figures when omitted */
  profile?: TypingProfile
  /** key presses in the session (default: log-normal around the README's median 242) */
  presses?: number
  /**
   * the clock, ms: 1 is Date.now() as in the study (default); 0.1 is Chrome's
   * event.timeStamp, which the SDK uses. Events of one USB report share a
   * timestamp on either clock, so the share of sub-2 ms gaps is kept.
   */
  clockMs?: number
}

/** a keyboard-only session of a person typing a few sentences, integer-ms times */
export function humanTypingSession(rng: Rng, opts: HumanTypingOptions = {}): Signal[] {
  const profile = opts.profile ?? sampleTypingProfile(rng)
  const n = opts.presses ?? clamp(Math.round(rng.logNormal(242, 0.15)), 60, 600)
  const classes = keySequence(rng, n)
  const N = n - 1

  // latencies[i] is the down-to-down time into press i+1; pauses go after a space near each sentence end
  const sentences = Math.max(1, Math.round(n / rng.uniform(40, 60)))
  const slots: number[] = []
  for (let s = 1; s < sentences; s++) {
    let i = Math.round((s * N) / sentences)
    while (i < N - 1 && classes[i] !== 'space') i++
    if (!slots.includes(i)) slots.push(i)
  }
  const base = classes.slice(1).map((kc, i) => {
    const prev = classes[i]!
    let m = 1
    if (kc === 'space' || prev === 'space') m *= 1.15
    if (kc === 'back' && prev === 'back') m *= 0.7
    if (prev === 'back' && kc !== 'back') m *= 1.3
    if (prev === 'mod') m *= 0.8
    return m * Math.exp(rng.normal(0, 0.45))
  })
  const span = (ls: readonly number[]) => ls.reduce((s, v) => s + v, 0) + profile.holdMedian
  const target = (n / profile.pressesPerSecond) * 1000
  // the overall median sits at rank N/2; when the pauses lie above it, it is a higher quantile of the rest
  const make = (pauses: number) => {
    const free = base.filter((_, i) => !slots.slice(0, pauses).includes(i))
    const p = clamp((0.5 * N) / free.length, 0, 1)
    return shaped(rng, free, profile.latencyCv, profile.latencyMedian, p, (v) => v <= 2000, [3, 1950], 1990)
  }
  // as many sentence pauses as the left-over time allows, each over 2 s so it stays out of the CV
  let pauses = slots.length
  let free = make(pauses)
  let deficit = target - span(free)
  while (pauses > 0 && deficit < pauses * 2100) {
    pauses = Math.max(0, Math.min(pauses - 1, Math.floor(deficit / 2100)))
    free = make(pauses)
    deficit = target - span(free)
  }
  const pauseSet = new Set(slots.slice(0, pauses))
  const weights = slots.slice(0, pauses).map(() => rng.logNormal(1, 0.4))
  const wsum = weights.reduce((s, v) => s + v, 0)
  const latencies: number[] = []
  for (let i = 0, j = 0, k = 0; i < N; i++)
    latencies.push(pauseSet.has(i) ? 2050 + Math.max(0, deficit - pauses * 2050) * (weights[k++]! / wsum) : free[j++]!)

  // holds: the longest go to Shift (held over the next key), the rest arranged for the rollover share
  const holds = shaped(
    rng,
    Array.from({ length: n }, () => Math.exp(rng.normal(0, 0.4))),
    profile.holdCv,
    profile.holdMedian,
    0.5,
    () => true,
    [2.5, 15 * profile.holdMedian],
    2000
  )
  arrangeHolds(rng, holds, latencies, classes, profile.rollover)

  // continuous times, then Date.now(): integer ms
  const events: { t: number; k: 'kd' | 'ku'; kc: KeyClass }[] = []
  let down = rng.uniform(0, 1500)
  for (let i = 0; i < n; i++) {
    if (i > 0) down += latencies[i - 1]!
    events.push({ t: down, k: 'kd', kc: classes[i]! })
    events.push({ t: down + holds[i]!, k: 'ku', kc: classes[i]! })
  }
  events.sort((a, b) => a.t - b.t)
  const clock = opts.clockMs ?? 1
  const grid = (v: number) => Math.round(Math.floor(v / clock + 1e-9) * clock * 1000) / 1000
  const times = events.map((e) => grid(e.t))
  coincide(rng, times, profile.gapsUnder2ms, grid)
  return events.map((e, i) => ({ t: times[i]!, k: e.k, kc: e.kc }))
}

/**
 * Orders the holds over the presses: Shift presses take the longest, then
 * swaps among the others (never changing the set of holds) bring the share of
 * presses held past the next key down to `rollover`, while long holds move
 * before long latencies (a key held past two more presses is avoided) and a
 * key released after a later key of its own class is avoided, since a
 * class-only stream could not pair the two back.
 */
function arrangeHolds(rng: Rng, holds: number[], latencies: readonly number[], classes: readonly KeyClass[], rollover: number): void {
  const n = holds.length
  holds.sort((a, b) => b - a)
  const mods = classes.map((c, i) => (c === 'mod' ? i : -1)).filter((i) => i >= 0)
  const rest = classes.map((c, i) => (c === 'mod' ? -1 : i)).filter((i) => i >= 0)
  const pool = holds.splice(0)
  const longest = pool.slice(0, mods.length)
  const others = pool.slice(mods.length)
  for (let i = others.length - 1; i > 0; i--) {
    const j = rng.int(0, i)
    ;[others[i], others[j]] = [others[j]!, others[i]!]
  }
  for (const [k, i] of mods.entries()) holds[i] = longest[k]!
  for (const [k, i] of rest.entries()) holds[i] = others[k]!
  const rolls = (i: number) => (i < n - 1 && holds[i]! > latencies[i]! ? 1 : 0)
  // a key other than Shift held past two more key downs is rare; a key released after a later key of its own class cannot be paired back
  const nested = (i: number) => {
    if (i >= n - 1) return 0
    if (classes[i] !== 'mod' && i < n - 2 && holds[i]! > latencies[i]! + latencies[i + 1]!) return 1
    let down = 0
    for (let j = i + 1; j < n && j <= i + 6; j++) {
      down += latencies[j - 1]!
      if (down >= holds[i]!) return 0
      if (classes[j] === classes[i] && down + holds[j]! < holds[i]!) return 1
    }
    return 0
  }
  const want = Math.round(rollover * (n - 1))
  let have = 0
  let bad = 0
  for (let i = 0; i < n - 1; i++) {
    have += rolls(i)
    bad += nested(i)
  }
  const cost = () => Math.abs(have - want) + 2 * bad
  const touched: number[] = []
  for (let step = 0; step < 30 * n && cost() > 0 && rest.length > 1; step++) {
    const a = rest[rng.int(0, rest.length - 1)]!
    const b = rest[rng.int(0, rest.length - 1)]!
    if (a === b) continue
    // the presses whose rollover or nesting can change: up to 6 before each swapped one
    touched.length = 0
    for (let i = Math.max(0, a - 6); i <= a; i++) touched.push(i)
    for (let i = Math.max(0, b - 6); i <= b; i++) if (i < a - 6 || i > a) touched.push(i)
    const before = cost()
    let dHave = 0
    let dBad = 0
    for (const i of touched) {
      dHave -= rolls(i)
      dBad -= nested(i)
    }
    ;[holds[a], holds[b]] = [holds[b]!, holds[a]!]
    for (const i of touched) {
      dHave += rolls(i)
      dBad += nested(i)
    }
    have += dHave
    bad += dBad
    if (cost() > before) {
      ;[holds[a], holds[b]] = [holds[b]!, holds[a]!]
      have -= dHave
      bad -= dBad
    }
  }
}

/** puts the closest consecutive event pairs into the same or next ms until a share `share` of gaps is under 2 ms */
function coincide(rng: Rng, times: number[], share: number, grid: (v: number) => number): void {
  const gaps = times.length - 1
  if (gaps < 1) return
  const want = Math.round(share * gaps)
  let have = 0
  for (let i = 1; i < times.length; i++) if (times[i]! - times[i - 1]! < 2) have++
  if (have > want) {
    // a keyboard that never reports two changes at once: move the surplus apart to 2–3 ms
    const close = []
    for (let i = 1; i < times.length; i++) if (times[i]! - times[i - 1]! < 2) close.push(i)
    for (let i = close.length - 1; i > 0; i--) {
      const j = rng.int(0, i)
      ;[close[i], close[j]] = [close[j]!, close[i]!]
    }
    let surplus = have - want
    for (const i of close) {
      if (surplus <= 0) break
      const to = grid(times[i - 1]! + rng.uniform(2, 3.99))
      if (i + 1 < times.length && to > times[i + 1]! - 2) continue
      times[i] = to
      surplus--
    }
    return
  }
  if (have === want) return
  const candidates = []
  for (let i = 1; i < times.length; i++) if (times[i]! - times[i - 1]! >= 2) candidates.push(i)
  candidates.sort((a, b) => times[a]! - times[a - 1]! - (times[b]! - times[b - 1]!))
  const chosen = candidates.slice(0, want - have).sort((a, b) => a - b)
  for (const i of chosen) times[i] = grid(times[i - 1]! + (rng.chance(0.6) ? 0 : rng.uniform(0, 1.99)))
}
