// HumanCursor's SystemCursor (riflosnake/HumanCursor 1.1, MIT), an OS-level "human-like" mouse for
// Python, driven through pyautogui: a Bézier through 1–10 random knots around the chord, its points
// pushed off in y by normal noise (mean and sd ≈ 1 px, on 25–70 % of them), then 90–109 of them picked
// through a pytweening easing (the index is tween(i / (n − 1)) of the way through the dense curve), and
// each sent with pyautogui.moveTo with PAUSE = duration / points (duration 0.5–2 s), so one OS move every
// 5–20 ms. Its parameters are drawn as `generate_random_curve_parameters` draws them for a 1920 × 1080
// screen. Re-implemented from the source (Python); nothing of it is installed.
import type { Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'
import { type Point, type Script, aimInMiddle, randomVisitOptions, runVisit } from './visit'

const { PI, cos, sin, sqrt } = Math
/** the 13 tweens `generate_random_curve_parameters` picks from (pytweening's formulas) */
const TWEENS: ((u: number) => number)[] = [
  (u) => (u === 1 ? 1 : 1 - 2 ** (-10 * u)), // easeOutExpo
  (u) => (u < 0.5 ? 16 * u ** 5 : 1 + 16 * (u - 1) ** 5), // easeInOutQuint
  (u) => -0.5 * (cos(PI * u) - 1), // easeInOutSine
  (u) => (u < 0.5 ? 8 * u ** 4 : 1 - 8 * (u - 1) ** 4), // easeInOutQuart
  (u) => (u === 0 || u === 1 ? u : u < 0.5 ? 0.5 * 2 ** (20 * u - 10) : 1 - 0.5 * 2 ** (-20 * u + 10)), // easeInOutExpo
  (u) => (u < 0.5 ? 4 * u ** 3 : 1 + 4 * (u - 1) ** 3), // easeInOutCubic
  (u) => (u < 0.5 ? 0.5 * (1 - sqrt(1 - 4 * u * u)) : 0.5 * (sqrt(1 - (2 * u - 2) ** 2) + 1)), // easeInOutCirc
  (u) => u, // linear
  (u) => sin((u * PI) / 2), // easeOutSine
  (u) => 1 - (u - 1) ** 4, // easeOutQuart
  (u) => 1 + (u - 1) ** 5, // easeOutQuint
  (u) => 1 + (u - 1) ** 3, // easeOutCubic
  (u) => sqrt(1 - (u - 1) ** 2), // easeOutCirc
]

const SCREEN = { w: 1920, h: 1080 }

/** random.choices(items, weights)[0] */
function weighted<T>(rng: Rng, items: readonly T[], weights: readonly number[]): T {
  const total = weights.reduce((a, b) => a + b, 0)
  let r = rng.next() * total
  for (let i = 0; i < items.length; i++) if ((r -= weights[i]) < 0) return items[i]
  return items[items.length - 1]
}

/** HumanizeMouseTrajectory(from, to, **generate_random_curve_parameters(...)).points */
export function humanCursorCurve(rng: Rng, from: Point, to: Point): Point[] {
  const inside = (p: Point) => p.x >= 0.15 * SCREEN.w && p.x <= 0.85 * SCREEN.w && p.y >= 0.15 * SCREEN.h && p.y <= 0.85 * SCREEN.h
  const boundary = () => {
    const [lo, hi] = weighted(
      rng,
      [
        [20, 45],
        [45, 75],
        [75, 100],
      ],
      [0.2, 0.65, 15]
    )
    return rng.int(lo, hi - 1)
  }
  let offX = boundary()
  let offY = boundary()
  let knots = weighted(rng, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [0.15, 0.36, 0.17, 0.12, 0.08, 0.04, 0.03, 0.02, 0.015, 0.005])
  const distortionMean = rng.int(80, 109) / 100
  const distortionSd = rng.int(85, 109) / 100
  const distortionFrequency = rng.int(25, 69) / 100
  const tween = rng.pick(TWEENS)
  const targetPoints = rng.int(90, 109)
  if (!inside(from) || !inside(to)) {
    offX = 0
    offY = 0
    knots = 1
  }
  // knots: np.random.choice(range(left, right)) per axis
  const pickIn = (lo: number, hi: number) => (hi > lo ? rng.int(Math.floor(lo), Math.ceil(hi) - 1) : lo)
  const control: Point[] = [from]
  for (let k = 0; k < knots; k++)
    control.push({
      x: pickIn(Math.min(from.x, to.x) - offX, Math.max(from.x, to.x) + offX),
      y: pickIn(Math.min(from.y, to.y) - offY, Math.max(from.y, to.y) + offY),
    })
  control.push(to)
  // the Bézier of all control points (Bernstein form), max(|dx|, |dy|, 2) points
  const n = Math.max(2, Math.floor(Math.max(Math.abs(to.x - from.x), Math.abs(to.y - from.y), 2)))
  const deg = control.length - 1
  const binom = (a: number, b: number) => {
    let r = 1
    for (let i = 1; i <= b; i++) r = (r * (a - b + i)) / i
    return r
  }
  const dense: Point[] = []
  for (let i = 0; i < n; i++) {
    const t = i / (n - 1)
    let x = 0
    let y = 0
    for (let j = 0; j <= deg; j++) {
      const b = binom(deg, j) * t ** j * (1 - t) ** (deg - j)
      x += control[j].x * b
      y += control[j].y * b
    }
    // distortion: inner points only, in y only
    if (i > 0 && i < n - 1 && rng.chance(distortionFrequency)) y += rng.normal(distortionMean, distortionSd)
    dense.push({ x, y })
  }
  return Array.from({ length: targetPoints }, (_, i) => dense[Math.floor(tween(i / (targetPoints - 1)) * (n - 1))])
}

function humanCursorScript(rng: Rng): Script {
  // time.sleep(PAUSE) after each moveTo: a fraction of a ms late on Linux and macOS; Windows before
  // Python 3.11 waits for its 15.6 ms tick
  const windowsTick = rng.chance(0.3)
  const slept = (ms: number) => (windowsTick ? Math.max(1, Math.ceil(ms / 15.625)) * 15.625 : ms + rng.uniform(0.05, 1))
  return {
    moveTo(visit, dest) {
      const to = { x: Math.round(dest.x), y: Math.round(dest.y) }
      const points = humanCursorCurve(rng, { x: Math.round(visit.pos.x), y: Math.round(visit.pos.y) }, to)
      const pause = (rng.uniform(0.5, 2) * 1000) / points.length
      // pyautogui.moveTo rounds each point to whole pixels; the last moveTo(point) lands on the target
      visit.playPath([...points.map((p) => ({ x: Math.round(p.x), y: Math.round(p.y) })), to], () => slept(pause))
    },
    aim: aimInMiddle(rng),
    // pyautogui.click(): down and up back to back
    hold: () => rng.uniform(0.1, 3),
    hesitate: () => rng.uniform(5, 20),
    // click_on sleeps 0.15–0.3 s after the click; scripts add their own waits
    sleep: () => rng.uniform(150, 300) + (rng.chance(0.5) ? rng.uniform(200, 3000) : 0),
  }
}

export const humanCursorSystem = (rng: Rng): Signal[] => runVisit(rng, humanCursorScript(rng), randomVisitOptions(rng, undefined, false))
