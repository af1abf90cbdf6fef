// pyautogui (Al Sweigart, BSD-3), the most used OS-level automation library in Python:
// `moveTo(x, y, duration, tween)` as its `_mouseMoveDrag` runs with the library's defaults.
// MINIMUM_DURATION 0.1 s and MINIMUM_SLEEP 0.05 s make a move of `duration` seconds
// int(duration / 0.05) steps, one OS cursor move per `time.sleep`, each at the integer point
// `tween(n / steps)` of the way along the straight line, then the target itself; `PAUSE` (0.1 s)
// follows every call, and `click()` sends the button down and up back to back. The page sees
// real, trusted moves about 50 ms apart: as sparse as a remote desktop's, but on a line.
import type { Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'
import { type Script, authorSleep, runVisit, scriptedScroll } from './visit'

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
      const points = Array.from({ length: steps }, (_, n) => {
        const u = tween(n / steps)
        return { x: Math.round(from.x + (to.x - from.x) * u), y: Math.round(from.y + (to.y - from.y) * u) }
      })
      points.push(to)
      visit.playPath(points, sleep)
    },
    aim: (_visit, b) => ({ x: b.x + rng.uniform(0.2, 0.8) * b.width, y: b.y + rng.uniform(0.2, 0.8) * b.height }),
    // mouseDown and mouseUp back to back
    hold: () => rng.uniform(0.1, 3),
    hesitate: () => PAUSE_MS + rng.uniform(0, 1),
    sleep: authorSleep(rng),
    scroll: rng.chance(0.4) ? (visit) => scriptedScroll(rng, visit) : undefined,
  }
}

export const pyautoguiTween = (rng: Rng): Signal[] => runVisit(rng, pyautoguiScript(rng))
