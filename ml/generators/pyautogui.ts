// pyautogui (Al Sweigart, BSD-3), the most used OS-level automation library in Python:
// `moveTo(x, y, duration, tween)` as its `_mouseMoveDrag` runs with the library's defaults.
// MINIMUM_DURATION 0.1 s and MINIMUM_SLEEP 0.05 s make a move of `duration` seconds
// int(duration / 0.05) steps, one OS cursor move per `time.sleep`, each at the integer point
// `tween(n / steps)` of the way along the straight line, then the target itself; `PAUSE` (0.1 s)
// follows every call, and `click()` sends the button down and up back to back. The page sees
// real, trusted moves about 50 ms apart: as sparse as a remote desktop's, but on a line.
import type { Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'
import { type Point, type Script, aimInMiddle, Visit, authorSleep, randomVisitOptions, runVisit, scriptedScroll } from './visit'

/** pyautogui's tweens (from PyTweening), the ones scripts pass most */
export const PYAUTOGUI_TWEENS = {
  linear: (u: number) => u,
  easeInQuad: (u: number) => u * u,
  easeOutQuad: (u: number) => -u * (u - 2),
  easeInOutQuad: (u: number) => (u < 0.5 ? 2 * u * u : -2 * u * u + 4 * u - 1),
  easeInOutSine: (u: number) => -0.5 * (Math.cos(Math.PI * u) - 1),
  easeOutCubic: (u: number) => (u - 1) ** 3 + 1,
} as const

const MINIMUM_SLEEP_MS = 50
const PAUSE_MS = 100

/** the whole-pixel point `u` of the way from `from` to `to`, as `_mouseMoveDrag` rounds it */
const along = (from: Point, to: Point, u: number): Point => ({
  x: Math.round(from.x + (to.x - from.x) * u),
  y: Math.round(from.y + (to.y - from.y) * u),
})

function pyautoguiScript(rng: Rng): Script {
  const names = Object.keys(PYAUTOGUI_TWEENS) as (keyof typeof PYAUTOGUI_TWEENS)[]
  // one tween for the whole script, or a random one per move
  const fixed = rng.chance(0.6) ? PYAUTOGUI_TWEENS[rng.pick(names)] : undefined
  // time.sleep(0.05) oversleeps by a fraction of a ms on Linux and macOS; on Windows before Python 3.11
  // it waits for the 15.6 ms system tick, so four ticks
  const windowsTick = rng.chance(0.3)
  const sleep = () => (windowsTick ? 62.5 + rng.uniform(-0.5, 0.5) : MINIMUM_SLEEP_MS + rng.uniform(0.05, 1.5))
  // duration: a fixed one, or drawn per move (random.uniform(a, b) in the script)
  const lo = rng.uniform(0.2, 1)
  const hi = rng.chance(0.3) ? lo : lo + rng.uniform(0.2, 1.5)
  return {
    moveTo(visit, dest) {
      const tween = fixed ?? PYAUTOGUI_TWEENS[rng.pick(names)]
      const steps = Math.max(1, Math.floor(rng.uniform(lo, hi) / (MINIMUM_SLEEP_MS / 1000)))
      // position() reads the cursor in whole pixels
      const from = { x: Math.round(visit.pos.x), y: Math.round(visit.pos.y) }
      const to = { x: Math.round(dest.x), y: Math.round(dest.y) }
      const points = Array.from({ length: steps }, (_, n) => along(from, to, tween(n / steps)))
      points.push(to)
      visit.playPath(points, sleep)
    },
    aim: aimInMiddle(rng),
    // mouseDown and mouseUp back to back
    hold: () => rng.uniform(0.1, 3),
    hesitate: () => PAUSE_MS + rng.uniform(0, 1),
    sleep: authorSleep(rng),
    scroll: rng.chance(0.4) ? (visit) => scriptedScroll(rng, visit) : undefined,
  }
}

export const pyautoguiTween = (rng: Rng): Signal[] => runVisit(rng, pyautoguiScript(rng), randomVisitOptions(rng, undefined, false))

/** pytweening's Circ easings, which the drawing script below also picks */
const easeOutCirc = (u: number) => Math.sqrt(1 - (u - 1) ** 2)
const easeInOutCirc = (u: number) => (u < 0.5 ? -0.5 * (Math.sqrt(1 - 4 * u * u) - 1) : 0.5 * (Math.sqrt(1 - (2 * u - 2) ** 2) + 1))

/**
 * A drawing challenge (draw a circle with the button held) solved with pyautogui, as DELBOT's published bot
 * script does it (python/botDrawing.py, move_type 1): the cursor jumps to the first vertex of a 15–250-gon
 * around the canvas centre (radius 100–330 px, each vertex's radius × 0.99–1.01 of the one before, the
 * ellipse stretched 0.8–1.2 per axis and skewed up to 0.4 rad, either way round), the button goes down,
 * then one `moveTo(vertex, duration, tween)` per vertex with duration uniform(d / 5, 2d), d one of 0.001–
 * 0.15 s: under MINIMUM_DURATION (0.1 s) the cursor jumps to the vertex, otherwise the tween's steps
 * `MINIMUM_SLEEP` apart; `PAUSE` (0.1 s) after every call; linear, easeOut(Quad|Circ) or easeInOut(Quad|Circ).
 * One to four circles per visit, the export button pressed by Selenium between them (no pointer event).
 */
export function pyautoguiDrawing(rng: Rng): Signal[] {
  const visit = new Visit(rng, randomVisitOptions(rng, undefined, false))
  const late = () => rng.uniform(0.05, 1.5)
  const circles = rng.int(1, 4)
  for (let c = 0; c < circles && !visit.full; c++) {
    const { w, h } = visit.viewport
    let radius = Math.min(rng.pick([100, 200, 250, 300, 330]), h / 2 - 20, w / 2 - 20)
    const steps = rng.pick([15, 30, 50, 80, 100, 150, 250])
    const d = rng.pick([0.15, 0.1, 0.05, 0.01, 0.005, 0.001])
    const ease = rng.int(0, 2)
    const direction = rng.chance(0.5) ? 1 : -1
    const offset = rng.uniform(0, 2 * Math.PI)
    const skew = rng.uniform(0, 0.4)
    const sx = rng.uniform(0.8, 1.2)
    const sy = rng.uniform(0.8, 1.2)
    const centre = { x: w / 2, y: h / 2.2 }
    const vertices = Array.from({ length: steps }, (_, i) => {
      radius *= rng.uniform(0.99, 1.01)
      const a = (i * 2 * Math.PI) / steps
      return {
        x: Math.round(centre.x + sx * radius * Math.cos(a + offset)),
        y: Math.round(centre.y + sy * radius * Math.sin(a + offset + skew) * direction),
      }
    })
    visit.playPath([vertices[0]], () => 0)
    visit.sleep(PAUSE_MS + late())
    vertices.shift()
    visit.press()
    visit.sleep(PAUSE_MS + late())
    for (const v of vertices) {
      const tween =
        ease === 0
          ? PYAUTOGUI_TWEENS.linear
          : ease === 1
            ? rng.pick([PYAUTOGUI_TWEENS.easeOutQuad, easeOutCirc])
            : rng.pick([PYAUTOGUI_TWEENS.easeInOutQuad, easeInOutCirc])
      const duration = rng.uniform(d / 5, 2 * d)
      const from = { x: Math.round(visit.pos.x), y: Math.round(visit.pos.y) }
      // under MINIMUM_DURATION (0.1 s) no tween: one jump
      const steps = duration < 0.1 ? 0 : Math.floor(duration / (MINIMUM_SLEEP_MS / 1000))
      // a move to the pixel the cursor is on sends the page nothing
      if (v.x === from.x && v.y === from.y) visit.sleep(steps * MINIMUM_SLEEP_MS)
      else if (steps === 0) visit.playPath([v], () => late())
      else {
        // each step sleeps MINIMUM_SLEEP; a step that lands on the pixel before sends nothing
        let last = from
        for (let k = 1; k <= steps; k++) {
          const p = along(from, v, tween(k / steps))
          if (p.x === last.x && p.y === last.y) visit.sleep(MINIMUM_SLEEP_MS + late())
          else visit.playPath([p], () => MINIMUM_SLEEP_MS + late())
          last = p
        }
      }
      visit.sleep(PAUSE_MS + late())
    }
    // down and up on the canvas: the browser fires its click
    visit.release(true)
    visit.sleep(rng.uniform(200, 2000))
  }
  return visit.finish()
}
