// "Humanizer" bots, the recipe of many small cursor helpers and tutorials: a
// cubic Bézier from here to the target with random control points (bezier-js),
// walked with an easing function over 0.5–2 s, a timer loop dispatching 1–4
// points per 60 Hz frame, sometimes overshooting and coming back, sometimes
// with a little pixel noise. The issue measured these scoring human_verified.
import { Bezier } from 'bezier-js'
import type { Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'
import { type Point, type Script, type Visit, authorSleep, randomVisitOptions, runVisit, scriptedScroll } from './visit'

export const EASINGS = {
  easeInOutQuad: (u: number) => (u < 0.5 ? 2 * u * u : 1 - (-2 * u + 2) ** 2 / 2),
  easeInOutCubic: (u: number) => (u < 0.5 ? 4 * u ** 3 : 1 - (-2 * u + 2) ** 3 / 2),
  easeInOutSine: (u: number) => -(Math.cos(Math.PI * u) - 1) / 2,
  easeInOutQuart: (u: number) => (u < 0.5 ? 8 * u ** 4 : 1 - (-2 * u + 2) ** 4 / 2),
  easeOutQuad: (u: number) => 1 - (1 - u) ** 2,
  easeOutCubic: (u: number) => 1 - (1 - u) ** 3,
  easeOutExpo: (u: number) => (u === 1 ? 1 : 1 - 2 ** (-10 * u)),
  linear: (u: number) => u,
} as const
export type EasingName = keyof typeof EASINGS

/** control points at random spots beside the chord, on one side or both (an S-curve) */
function randomCurve(rng: Rng, from: Point, to: Point, bend: number): Bezier {
  const dx = to.x - from.x
  const dy = to.y - from.y
  const len = Math.hypot(dx, dy) || 1
  const nx = -dy / len
  const ny = dx / len
  const side = rng.chance(0.5) ? 1 : -1
  const c = (at: number, s: number) => {
    const off = s * rng.uniform(0.05, bend) * len
    return { x: from.x + dx * at + nx * off, y: from.y + dy * at + ny * off }
  }
  const sCurve = rng.chance(0.25)
  return new Bezier(from, c(rng.uniform(0.15, 0.45), side), c(rng.uniform(0.55, 0.85), sCurve ? -side : side), to)
}

type HumanizerStyle = {
  easing: (u: number) => number
  /** duration of one movement, ms */
  duration: (distance: number) => number
  /** points dispatched per 60 Hz frame */
  perFrame: () => number
  frameMs: number
  noise: number
  overshoot: number
  bend: number
}

function humanizerStyle(rng: Rng): HumanizerStyle {
  const names = Object.keys(EASINGS).filter((n) => n !== 'linear') as EasingName[]
  const easing = EASINGS[rng.pick(names)]
  const fixedDuration = rng.chance(0.4)
  const lo = rng.uniform(500, 1200)
  const hi = rng.uniform(lo, 2000)
  const perFrameFixed = rng.int(1, 4)
  return {
    easing,
    // either a random duration in [lo, hi] or one growing with distance, both inside 0.5–2 s
    duration: fixedDuration ? () => rng.uniform(lo, hi) : (d) => Math.min(2000, Math.max(500, lo + d * rng.uniform(0.3, 0.8))),
    perFrame: rng.chance(0.5) ? () => perFrameFixed : () => rng.int(1, 4),
    frameMs: rng.chance(0.8) ? 1000 / 60 : rng.pick([10, 16, 20]),
    noise: rng.chance(0.5) ? rng.uniform(0.2, 1.5) : 0,
    overshoot: rng.chance(0.5) ? rng.uniform(0.3, 0.9) : 0,
    bend: rng.uniform(0.1, 0.5),
  }
}

/** the timer loop: every frame it dispatches k points, spaced evenly inside the frame */
function playEased(rng: Rng, visit: Visit, curve: Bezier, style: HumanizerStyle, duration: number): void {
  const timed: { x: number; y: number; t: number }[] = []
  for (let frame = 0, t = 0; t < duration; frame++) {
    const k = style.perFrame()
    for (let i = 0; i < k; i++) {
      t = Math.min(duration, frame * style.frameMs + (i * style.frameMs) / k + rng.uniform(0, 0.3))
      const p = curve.get(style.easing(t / duration))
      timed.push({ x: p.x + rng.normal(0, style.noise), y: p.y + rng.normal(0, style.noise), t })
    }
  }
  const end = curve.get(1)
  timed.push({ x: end.x, y: end.y, t: duration })
  visit.playTimed(timed)
}

function humanizerScript(rng: Rng): Script {
  const style = humanizerStyle(rng)
  const sleep = authorSleep(rng)
  return {
    moveTo(visit, dest, box) {
      const from = visit.pos
      const d = Math.hypot(dest.x - from.x, dest.y - from.y)
      if (box && style.overshoot > 0 && rng.chance(style.overshoot) && d > 100) {
        // past the target by 3–12 % of the distance, then a short eased correction back
        const k = 1 + rng.uniform(0.03, 0.12)
        const past = { x: from.x + (dest.x - from.x) * k + rng.normal(0, 4), y: from.y + (dest.y - from.y) * k + rng.normal(0, 4) }
        playEased(rng, visit, randomCurve(rng, from, past, style.bend), style, style.duration(d))
        playEased(rng, visit, randomCurve(rng, visit.pos, dest, 0.1), style, rng.uniform(120, 350))
        return
      }
      playEased(rng, visit, randomCurve(rng, from, dest, style.bend), style, style.duration(d))
    },
    aim: (_visit, b) => ({ x: b.x + b.width * rng.uniform(0.25, 0.75), y: b.y + b.height * rng.uniform(0.25, 0.75) }),
    hold: () => rng.uniform(40, 160),
    hesitate: () => rng.uniform(30, 400),
    sleep,
    scroll: rng.chance(0.5) ? (visit) => scriptedScroll(rng, visit) : undefined,
    hover: 0.15,
  }
}

/** points of a timer loop (not awaited one by one) reach the page once per animation frame, several coalesced */
export const humanizerBezier = (rng: Rng): Signal[] => runVisit(rng, humanizerScript(rng), randomVisitOptions(rng, undefined, false))
