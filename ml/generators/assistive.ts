// People who move the pointer without a mouse: Mouse Keys (Windows, macOS, GNOME/X11, keyboard firmware
// such as QMK). The cursor is moved by the operating system, not by a hand: while a direction key is held it
// steps along one of eight directions (the axes and diagonals), one step every `interval` ms after an initial
// `delay`, the step growing linearly (X11's MouseKeysAccel, QMK's default) or along a curve (QMK's kinetic
// mode) to a top speed, or constant (QMK's constant mode). The person's part is when to press and release:
// reaction times, overshoot and corrective taps near the target. The events are trusted; the keys are
// consumed by the system, so the page sees no key events for them. Parameters from the X11 and QMK
// documentation (delay 10–300 ms, interval 10–40 ms, time to top speed 10–60 steps); the person's timing
// is assumed, not measured (there are no recordings of Mouse Keys users here).
import type { Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'
import { type Box, type Point, type Script, randomVisitOptions, runVisit, type Visit } from './visit'

type Device = {
  delayMs: number
  intervalMs: number
  /** step of the first move and of the top speed, device px */
  firstStep: number
  topStep: number
  /** steps to top speed and the shape of the ramp (1 linear; 2 quadratic); 0 steps = constant speed */
  toTop: number
  curve: number
  /** CSS px per device px (1 / devicePixelRatio) */
  css: number
}

function randomDevice(rng: Rng): Device {
  const intervalMs = rng.pick([10, 16, 20, 20, 40])
  const topSpeed = rng.uniform(250, 1500) // px/s
  const constant = rng.chance(0.2)
  return {
    delayMs: rng.uniform(10, 300),
    intervalMs,
    firstStep: rng.pick([1, 1, 2, 4, 8]),
    topStep: Math.max(2, Math.round((topSpeed * intervalMs) / 1000)),
    toTop: constant ? 0 : rng.int(10, 60),
    curve: rng.chance(0.3) ? 2 : 1,
    css: 1 / rng.pick([1, 1, 1.25, 1.5, 2]),
  }
}

/** the i-th step (1-based) of a held key, device px */
function stepOf(d: Device, i: number): number {
  if (d.toTop === 0) return d.topStep
  if (i === 1) return d.firstStep
  const u = Math.min(1, (i - 1) / d.toTop) ** d.curve
  return Math.max(1, Math.round(d.firstStep + (d.topStep - d.firstStep) * u))
}

/** the times (ms after the press) of a held key's steps */
const stepTime = (d: Device, i: number) => (i === 1 ? 0 : d.delayMs + (i - 2) * d.intervalMs)

function mouseKeysScript(rng: Rng): Script {
  const d = randomDevice(rng)
  // the person: how long they take to react to the cursor reaching the target, and to choose the next key
  const lagMs = rng.uniform(120, 320)
  const anticipation = rng.uniform(0, 1)
  const think = () => rng.logNormal(rng.uniform(250, 600), 0.4)
  const useDiagonals = rng.chance(0.7)
  const press = (visit: Visit, dir: Point, remaining: number) => {
    // speed so far decides when the person lets go: late by their reaction lag, less when they anticipate
    const points: { x: number; y: number; t: number }[] = []
    let moved = 0
    let releaseAt = Number.POSITIVE_INFINITY
    let p = { ...visit.pos }
    for (let i = 1; i < 400; i++) {
      const t = stepTime(d, i)
      if (t > releaseAt) break
      const s = stepOf(d, i) * d.css
      p = { x: p.x + dir.x * s, y: p.y + dir.y * s }
      points.push({ ...p, t })
      moved += s
      if (moved >= remaining && releaseAt === Number.POSITIVE_INFINITY)
        releaseAt = t + Math.max(0, lagMs * (1 - anticipation * rng.uniform(0.3, 1)) + rng.normal(0, 30))
    }
    // a tap shorter than the delay moves one step
    visit.playTimed(points)
    visit.sleep(rng.uniform(40, 120))
  }
  return {
    moveTo(visit, dest, box) {
      const tolX = box ? box.width * 0.4 : 6
      const tolY = box ? box.height * 0.4 : 6
      for (let segment = 0; segment < 12; segment++) {
        const dx = dest.x - visit.pos.x
        const dy = dest.y - visit.pos.y
        const offX = Math.abs(dx) > tolX
        const offY = Math.abs(dy) > tolY
        if (!offX && !offY) return
        visit.sleep(think())
        if (useDiagonals && offX && offY) {
          press(visit, { x: Math.sign(dx), y: Math.sign(dy) }, Math.min(Math.abs(dx), Math.abs(dy)))
        } else if (offX && (!offY || Math.abs(dx) >= Math.abs(dy))) {
          press(visit, { x: Math.sign(dx), y: 0 }, Math.abs(dx))
        } else {
          press(visit, { x: 0, y: Math.sign(dy) }, Math.abs(dy))
        }
      }
    },
    aim: (_visit, b: Box) => ({ x: b.x + rng.uniform(0.3, 0.7) * b.width, y: b.y + rng.uniform(0.3, 0.7) * b.height }),
    // the click key: down and up as the key is (X11), or back to back (Windows)
    hold: () => (rng.chance(0.5) ? rng.uniform(0, 2) : rng.logNormal(100, 0.3)),
    hesitate: () => rng.logNormal(400, 0.4),
    sleep: () => rng.logNormal(1500, 0.6),
    hover: 0.1,
  }
}

/** a visit of a person using Mouse Keys, delivered as a real browser delivers OS cursor moves (one per frame) */
export const mouseKeysVisit = (rng: Rng): Signal[] => runVisit(rng, mouseKeysScript(rng), randomVisitOptions(rng, 'frames'))
