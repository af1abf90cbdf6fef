// Capture augmentation: the same behaviour as another browser or logger would
// have recorded it. Applied to any session, real or generated; inputs are
// never modified.
import type { Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'

export type CaptureField = 'n' | 'ox' | 'oy' | 'sc' | 'tr'

/** drops fields a logger or browser does not provide (Safari: no `n`; plain loggers: no `ox`/`oy`/`sc`/`tr`) */
export function stripFields(signals: readonly Signal[], fields: readonly CaptureField[]): Signal[] {
  return signals.map((e) => {
    const out: Signal = { ...e }
    for (const f of fields) delete out[f]
    return out
  })
}

/**
 * A coarse timer: every `t` floored to a multiple of `stepMs` (1 ms integer
 * clocks, 16.7 ms frame clocks, 100 ms under resistFingerprinting). Flooring
 * keeps the order; values are rounded to 1 µs so that 3 × 16.7 is 50.1.
 */
export function quantiseTime(signals: readonly Signal[], stepMs: number): Signal[] {
  if (!(stepMs > 0)) throw new Error('stepMs must be positive')
  return signals.map((e) => ({ ...e, t: Math.round(Math.floor(e.t / stepMs + 1e-9) * stepMs * 1000) / 1000 }))
}

/**
 * Pointer and touch positions on a device-pixel grid of 1/dpr CSS px: a mouse
 * on a dpr-1 screen gives whole px, dpr 2 halves, 1.5 thirds; scripts sending
 * fractional CDP coordinates give anything. Rounded to 0.1 px as the SDK sends.
 */
export function quantisePositions(signals: readonly Signal[], dpr: number): Signal[] {
  if (!(dpr > 0)) throw new Error('dpr must be positive')
  const q = (v: number) => Math.round((Math.round(v * dpr) / dpr) * 10) / 10
  return signals.map((e) => (e.x !== undefined && e.y !== undefined ? { ...e, x: q(e.x), y: q(e.y) } : { ...e }))
}

type Sample = { t: number; x: number; y: number; n: number }

/** cubic Hermite through the samples with time-aware tangents (Catmull–Rom for uneven spacing) */
function hermiteAt(s: readonly Sample[], i: number, t: number): { x: number; y: number } {
  const a = s[i]!
  const b = s[i + 1]!
  const h = b.t - a.t
  if (h <= 0) return { x: b.x, y: b.y }
  const tangent = (j: number, k: 'x' | 'y') => {
    const lo = s[Math.max(0, j - 1)]!
    const hi = s[Math.min(s.length - 1, j + 1)]!
    return hi.t > lo.t ? (hi[k] - lo[k]) / (hi.t - lo.t) : 0
  }
  const u = (t - a.t) / h
  const h00 = 2 * u ** 3 - 3 * u ** 2 + 1
  const h10 = u ** 3 - 2 * u ** 2 + u
  const h01 = -2 * u ** 3 + 3 * u ** 2
  const h11 = u ** 3 - u ** 2
  return {
    x: h00 * a.x + h10 * h * tangent(i, 'x') + h01 * b.x + h11 * h * tangent(i + 1, 'x'),
    y: h00 * a.y + h10 * h * tangent(i, 'y') + h01 * b.y + h11 * h * tangent(i + 1, 'y'),
  }
}

/** a stroke: consecutive moves with no other pointer event between them and no gap over `maxGapMs` */
function strokes(signals: readonly Signal[], maxGapMs: number): number[][] {
  const out: number[][] = []
  let cur: number[] = []
  for (let i = 0; i < signals.length; i++) {
    const e = signals[i]!
    if (e.k === 'mm' && e.x !== undefined && e.y !== undefined) {
      const prev = cur.length ? signals[cur[cur.length - 1]!]! : null
      if (prev && e.t - prev.t > maxGapMs) {
        out.push(cur)
        cur = []
      }
      cur.push(i)
    } else if (e.k === 'md' || e.k === 'mu' || e.k === 'c') {
      if (cur.length) out.push(cur)
      cur = []
    }
  }
  if (cur.length) out.push(cur)
  return out
}

/**
 * The pointer moves as a device and display polling at `hz` would have
 * delivered them: within each stroke, samples on a grid of 1000/hz ms (random
 * phase) interpolated between the recorded ones, plus the stroke's first and
 * last sample, so endpoints and durations stay. Other events are untouched.
 * When the source carries `n`, a resampled move carries the number of
 * source samples it stands for (at least 1).
 */
export function resamplePointer(rng: Rng, signals: readonly Signal[], hz: number): Signal[] {
  if (!(hz > 0)) throw new Error('hz must be positive')
  const period = 1000 / hz
  const strokeOf = strokes(signals, Math.max(100, 3 * period))
  const moves = new Set<number>()
  const made: { at: number; events: Signal[] }[] = []
  for (const idx of strokeOf) {
    for (const i of idx) moves.add(i)
    const src = idx.map((i) => signals[i]!)
    const samples: Sample[] = src.map((e) => ({ t: e.t, x: e.x!, y: e.y!, n: e.n ?? 1 }))
    const hasN = src.some((e) => e.n !== undefined)
    const first = samples[0]!
    const last = samples[samples.length - 1]!
    const template = src[src.length - 1]!
    const move = (t: number, x: number, y: number, n: number): Signal => {
      const e: Signal = { ...template, t, x: Math.round(x * 10) / 10, y: Math.round(y * 10) / 10 }
      if (hasN) e.n = Math.max(1, n)
      else delete e.n
      return e
    }
    const out: Signal[] = [move(first.t, first.x, first.y, first.n)]
    let j = 0
    let consumed = 1
    for (let t = first.t + rng.uniform(0.05, 1) * period; t < last.t; t += period) {
      let covered = 0
      while (j < samples.length - 2 && samples[j + 1]!.t <= t) {
        j++
        covered += samples[j]!.n
      }
      consumed += covered
      const p = hermiteAt(samples, j, t)
      out.push(move(t, p.x, p.y, covered))
    }
    const rest = samples.reduce((s, v) => s + v.n, 0) - consumed
    if (samples.length > 1) out.push(move(last.t, last.x, last.y, rest))
    made.push({ at: idx[0]!, events: out })
  }
  // rebuild in order: each stroke's new samples where its first move was
  const byStart = new Map(made.map((m) => [m.at, m.events]))
  const result: Signal[] = []
  for (let i = 0; i < signals.length; i++) {
    const fresh = byStart.get(i)
    if (fresh) result.push(...fresh)
    else if (!moves.has(i)) result.push({ ...signals[i]! })
  }
  return result.sort((a, b) => a.t - b.t)
}

export type CaptureProfile = { strip: CaptureField[]; stepMs: number | null; hz: number | null; dpr: number | null }

/**
 * A capture set-up drawn at random, for augmenting training data: which
 * fields the browser or logger leaves out, the timer's resolution (none =
 * leave as is, 1 ms integer clocks most often, 16.7 and 100 ms coarse ones),
 * sometimes another pointer rate (60–240 Hz) and a device-pixel grid. The shares are our guesses
 * at a plausible mix, not measured traffic.
 */
export function randomCaptureProfile(rng: Rng): CaptureProfile {
  const r = rng.next()
  const strip: CaptureField[] = r < 0.35 ? [] : r < 0.55 ? ['n'] : r < 0.8 ? ['n', 'ox', 'oy', 'sc', 'tr'] : ['ox', 'oy', 'sc']
  const q = rng.next()
  const stepMs = q < 0.3 ? null : q < 0.85 ? 1 : q < 0.95 ? 16.7 : 100
  const hz = rng.chance(0.3) ? rng.pick([60, 75, 90, 120, 144, 165, 240]) : null
  const dpr = rng.chance(0.5) ? rng.pick([1, 1, 1.25, 1.5, 2, 3]) : null
  return { strip, stepMs, hz, dpr }
}

/** applies a capture profile: resampling first (the device), then the pixel grid, the timer, the missing fields */
export function applyCapture(rng: Rng, signals: readonly Signal[], profile: CaptureProfile): Signal[] {
  let out: Signal[] = [...signals]
  if (profile.hz) out = resamplePointer(rng, out, profile.hz)
  if (profile.dpr) out = quantisePositions(out, profile.dpr)
  if (profile.stepMs) out = quantiseTime(out, profile.stepMs)
  if (profile.strip.length) out = stripFields(out, profile.strip)
  return out
}
