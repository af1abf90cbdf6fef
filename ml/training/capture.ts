// Capture differences between browsers and loggers, applied to recorded
// sessions: fields some browsers do not send, timer resolution, pointer rate,
// page zoom and display scaling.
// Training applies them to humans and bots alike (so no capture setting
// becomes evidence for either class); eval measures real humans under each.
import type { Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'

export type Capture =
  | 'as_recorded'
  | 'stripped'
  | 'integer_ms'
  | 'timer_16.7'
  | 'timer_100'
  | 'rate_60'
  | 'rate_120'
  | 'rate_240'
  | 'uneven_delivery'
  | 'remote_desktop'
  | 'zoom_80'
  | 'zoom_150'
  | 'zoom_200'
export const CAPTURES: readonly Capture[] = [
  'as_recorded',
  'stripped',
  'integer_ms',
  'timer_16.7',
  'timer_100',
  'rate_60',
  'rate_120',
  'rate_240',
  'uneven_delivery',
  'remote_desktop',
  'zoom_80',
  'zoom_150',
  'zoom_200',
]

/** without the fields many loggers and Safari do not give: n, ox/oy, sc, tr */
export function stripOptional(signals: readonly Signal[]): Signal[] {
  return signals.map(({ n: _n, ox: _ox, oy: _oy, sc: _sc, tr: _tr, ...rest }) => rest)
}

/** timestamps floored to a timer of `ms` resolution (16.7: a frame clock; 100: resistFingerprinting) */
export function quantiseTime(signals: readonly Signal[], ms: number): Signal[] {
  return signals.map((s) => ({ ...s, t: Math.floor(s.t / ms + 1e-9) * ms }))
}

const isPos = (s: Signal) => s.k === 'mm' || s.k === 'tm'

/**
 * Pointer moves at another rate: fewer moves by keeping one per period; more
 * by a Catmull–Rom spline through the recorded ones (what a faster pointer
 * would have reported between them, without inventing new corrections).
 * Only runs of consecutive moves closer than 100 ms are resampled.
 */
export function resampleRate(signals: readonly Signal[], hz: number): Signal[] {
  const period = 1000 / hz
  const out: Signal[] = []
  let run: Signal[] = []
  const flush = () => {
    if (run.length < 2) {
      out.push(...run)
      run = []
      return
    }
    const t0 = run[0].t
    const t1 = run[run.length - 1].t
    let j = 0
    for (let at = t0; at <= t1 + 1e-9; at += period) {
      while (j < run.length - 2 && run[j + 1].t < at) j++
      const a = run[Math.max(0, j - 1)]
      const b = run[j]
      const c = run[j + 1]
      const d = run[Math.min(run.length - 1, j + 2)]
      const u = c.t > b.t ? Math.min(1, Math.max(0, (at - b.t) / (c.t - b.t))) : 0
      const cr = (p0: number, p1: number, p2: number, p3: number) =>
        0.5 * (2 * p1 + (-p0 + p2) * u + (2 * p0 - 5 * p1 + 4 * p2 - p3) * u * u + (-p0 + 3 * p1 - 3 * p2 + p3) * u * u * u)
      out.push({
        ...b,
        t: Math.round(at * 10) / 10,
        x: Math.round(cr(a.x!, b.x!, c.x!, d.x!) * 10) / 10,
        y: Math.round(cr(a.y!, b.y!, c.y!, d.y!) * 10) / 10,
      })
    }
    run = []
  }
  for (const s of signals) {
    if (isPos(s) && Number.isFinite(s.x) && Number.isFinite(s.y)) {
      if (run.length && (s.t - run[run.length - 1].t > 100 || s.k !== run[0].k)) flush()
      run.push(s)
    } else {
      flush()
      out.push(s)
    }
  }
  flush()
  return out.sort((p, q) => p.t - q.t)
}

/**
 * Events stamped unevenly while the hand moved evenly: a virtual machine or a
 * remote desktop delivers the pointer late and in bursts (DELBOT's VM setup:
 * gaps of 1–40 ms around a 17 ms rate). Each timestamp moves by up to ±`ms`
 * (a fixed pseudo-random pattern, so eval runs repeat), order kept.
 */
export function unevenDelivery(signals: readonly Signal[], ms = 6): Signal[] {
  let prev = Number.NEGATIVE_INFINITY
  let h = 0x9e3779b9
  return signals.map((s) => {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) ^ Math.imul(h ^ (h >>> 12), 0x297a2d39)
    const u = ((h >>> 0) / 2 ** 32) * 2 - 1
    const t = Math.max(prev, Math.round((s.t + u * ms) * 10) / 10)
    prev = t
    return { ...s, t }
  })
}

/**
 * A browser inside a remote desktop or virtual desktop: the protocol delivers
 * the cursor about nine times a second (the Balabit RDP recordings: median
 * gap 110 ms), on whole pixels and whole milliseconds, stamped a little
 * unevenly. The page then sees a hand's stroke as a few straight pieces.
 */
export function remoteDesktop(signals: readonly Signal[]): Signal[] {
  const sparse = resampleRate(signals, 9).map((s) => (isPos(s) ? { ...s, x: Math.round(s.x!), y: Math.round(s.y!) } : s))
  return quantiseTime(unevenDelivery(sparse, 8), 1)
}

/**
 * The page zoomed, or the display scaled (Windows laptops default to 125–150 %), by `percent`: the same
 * hand in CSS px is the recorded device px × 100 / percent, to the SDK's 0.1 px (positions, touch radius,
 * wheel deltas). The hand and the clock are unchanged; only the page's ruler is.
 */
export function zoomed(signals: readonly Signal[], percent: number): Signal[] {
  const f = 100 / percent
  const css = (v: number) => Math.round(v * f * 10) / 10
  return signals.map((s) => {
    const out = { ...s }
    if (Number.isFinite(s.x)) out.x = css(s.x!)
    if (Number.isFinite(s.y)) out.y = css(s.y!)
    if (Number.isFinite(s.r)) out.r = css(s.r!)
    if (Number.isFinite(s.dy)) out.dy = css(s.dy!)
    return out
  })
}

export function applyCapture(signals: readonly Signal[], c: Capture): Signal[] {
  switch (c) {
    case 'as_recorded':
      return [...signals]
    case 'stripped':
      return stripOptional(signals)
    case 'integer_ms':
      return quantiseTime(signals, 1)
    case 'timer_16.7':
      return quantiseTime(signals, 50 / 3)
    case 'timer_100':
      return quantiseTime(signals, 100)
    case 'rate_60':
      return resampleRate(signals, 60)
    case 'rate_120':
      return resampleRate(signals, 120)
    case 'rate_240':
      return resampleRate(signals, 240)
    case 'uneven_delivery':
      return unevenDelivery(signals)
    case 'remote_desktop':
      return remoteDesktop(signals)
    case 'zoom_80':
      return zoomed(signals, 80)
    case 'zoom_150':
      return zoomed(signals, 150)
    case 'zoom_200':
      return zoomed(signals, 200)
  }
}

/**
 * The settings training copies are drawn from: every one but `remote_desktop`, which eval measures
 * and the sparse-pointer floor of evidence.ts handles (trained on, it taught the trees that a cursor
 * set a few times a second is human, and the OS-cursor bots that sleep between steps passed:
 * docs/scoring.md, m4-2026.11.5), and the zooms, added to the eval later (2026-11-26) to measure
 * whether the trees need them; training on them would be a new model.
 */
const UNTRAINED: readonly Capture[] = ['remote_desktop', 'zoom_80', 'zoom_150', 'zoom_200']
const TRAINED: readonly Capture[] = CAPTURES.filter((c) => !UNTRAINED.includes(c))

/**
 * Share of training copies, humans and bots alike, given a hand tremor before their capture (M4_TREMOR_SHARE,
 * to measure, not for the model: 0 keeps the rows of m4-2026.11.13). Applied to bots as well, so a tremor is
 * evidence of neither. Measured over five draws and not shipped: the trees then also let noise added to a
 * scripted path through (docs/scoring-history.md, "People with a hand tremor").
 */
const TREMOR_SHARE = Number(process.env.M4_TREMOR_SHARE ?? 0)
/** the largest training tremor, px in all (M4_TREMOR_MAX_PX, to measure) */
const TREMOR_MAX_PX = Number(process.env.M4_TREMOR_MAX_PX ?? 5)

/**
 * A tremor for training: three oscillations of 4–12 Hz summed, 0.5–5 px in all, each axis its own. Not the
 * eval's tremor (one drifting, swelling oscillation, ml/generators/tremor.ts), so the eval's tremor rows do
 * not grade the trees on the very signal they were trained on.
 */
function trainingTremor(rng: Rng, signals: readonly Signal[]): Signal[] {
  const total = rng.uniform(0.5, TREMOR_MAX_PX)
  const parts = Array.from({ length: 3 }, () => ({
    hz: rng.uniform(4, 12),
    ax: total * rng.uniform(0.1, 0.6),
    ay: total * rng.uniform(0.1, 0.6),
    px: rng.uniform(0, 2 * Math.PI),
    py: rng.uniform(0, 2 * Math.PI),
  }))
  const round = (v: number) => Math.round(v * 10) / 10
  return signals.map((e) => {
    if (e.k !== 'mm' || e.x === undefined || e.y === undefined) return e
    let x = e.x
    let y = e.y
    for (const p of parts) {
      const w = (2 * Math.PI * p.hz * e.t) / 1000
      x += p.ax * Math.sin(w + p.px)
      y += p.ay * Math.sin(w + p.py)
    }
    return { ...e, x: round(x), y: round(y) }
  })
}

/** a training copy: stripped always, then one capture setting drawn at random (as recorded half the time) */
export function augment(rng: Rng, signals: readonly Signal[]): Signal[] {
  const hand = TREMOR_SHARE > 0 && rng.next() < TREMOR_SHARE ? trainingTremor(rng, signals) : signals
  const stripped = stripOptional(hand)
  const r = rng.next()
  if (r < 0.4) return stripped
  const c = TRAINED[2 + Math.floor(rng.next() * (TRAINED.length - 2))]
  return applyCapture(stripped, c)
}

/** a sub-window of `seconds` starting at a random time, t rebased to 0 */
export function window(rng: Rng, signals: readonly Signal[], seconds: number): Signal[] {
  if (!signals.length) return []
  const end = signals[signals.length - 1].t
  const len = seconds * 1000
  const start = end > len ? rng.uniform(signals[0].t, end - len) : signals[0].t
  return signals.filter((s) => s.t >= start && s.t < start + len).map((s) => ({ ...s, t: Math.round((s.t - start) * 10) / 10 }))
}
