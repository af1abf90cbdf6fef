// NaturalMouseMotion (JoonasVali/NaturalMouseMotion 2.0.3, MIT), the Java library that moves the
// OS cursor "as a hand would" through java.awt.Robot; DELBOT's authors drove browsers with it too.
// A move is split into a few movements (up to 3–4 overshoots around the target, then the target),
// each walked in equal time steps (one OS move every `time / 8` ms, about 7–8 ms) whose lengths follow
// a recorded speed "flow" (one of nine templates), bent by a sinusoidal arc (up to a tenth of the
// distance, a random sign and size per axis), with a random-walk noise on slow steps, both faded over
// the last 15 steps, each position rounded toward the target; 20–140 ms of "reaction" between
// movements. Ported from `MouseMotion`, `MovementFactory`, `Flow`, `DefaultSpeedManager`,
// `DefaultOvershootManager`, `DefaultNoiseProvider`, `SinusoidalDeviationProvider` and the
// `FactoryTemplates`, with the library's constants; nothing of it is installed (Java).
import type { Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'
import { type Point, type Script, Visit, authorSleep, randomVisitOptions, runVisit } from './visit'

// FlowTemplates: speed profiles the author recorded by hand, 100 buckets each (adjusting: 50)
const FLOWS = {
  // prettier-ignore
  variating: [
    10, 13, 14, 19, 16, 13, 15, 22, 56, 90, 97, 97, 66, 51, 50, 66, 91, 95, 87, 96, 98, 88, 70, 62, 57, 63, 79, 93, 98, 97, 100, 104, 83,
    49, 37, 53, 68, 73, 61, 51, 64, 107, 103, 111, 94, 88, 95, 86, 88, 97, 108, 85, 86, 74, 72, 73, 58, 50, 50, 60, 62, 61, 52, 53, 44, 30,
    21, 25, 21, 17, 16, 13, 8, 2, 6, 9, 6, 3, 7, 12, 13, 15, 11, 9, 9, 7, 6, 4, 1, 2, 3, 2, 2, 11, 15, 7, 1, 0, 0, 1,
  ],
  // prettier-ignore
  interrupted: [
    12, 11, 10, 20, 24, 19, 26, 15, 9, 9, 10, 24, 26, 30, 24, 49, 72, 60, 81, 113, 82, 99, 67, 10, 7, 7, 7, 10, 8, 7, 9, 6, 6, 7, 10, 11,
    12, 8, 7, 3, 0, 2, 8, 10, 10, 12, 6, 4, 4, 3, 8, 11, 11, 11, 11, 13, 11, 20, 25, 18, 21, 23, 56, 40, 36, 58, 69, 60, 63, 51, 87, 71, 86,
    66, 115, 97, 80, 65, 50, 66, 57, 24, 11, 11, 7, 3, 0, 0, 1, 3, 3, 5, 6, 12, 11, 7, 11, 17, 17, 23,
  ],
  // prettier-ignore
  interrupted2: [
    12, 11, 10, 20, 24, 19, 26, 15, 9, 9, 10, 24, 26, 30, 24, 49, 72, 60, 81, 113, 82, 99, 67, 10, 12, 8, 11, 15, 16, 17, 17, 12, 16, 37,
    10, 25, 12, 11, 41, 10, 12, 11, 40, 36, 52, 61, 60, 64, 51, 82, 71, 81, 66, 105, 92, 59, 65, 51, 66, 54, 21, 21, 12, 40, 36, 58, 69, 60,
    63, 51, 87, 71, 86, 66, 115, 97, 80, 65, 50, 66, 57, 24, 11, 11, 7, 3, 0, 0, 1, 3, 3, 5, 6, 12, 11, 7, 11, 17, 17, 23,
  ],
  // prettier-ignore
  slowStartup: [
    8, 5, 1, 1, 1, 2, 2, 3, 3, 3, 5, 7, 9, 10, 10, 11, 11, 11, 12, 12, 13, 15, 14, 13, 15, 15, 17, 17, 18, 18, 20, 19, 20, 20, 19, 20, 19,
    20, 21, 22, 20, 17, 20, 22, 18, 20, 21, 18, 20, 20, 18, 20, 19, 21, 19, 19, 19, 19, 20, 19, 20, 21, 19, 19, 17, 21, 21, 17, 19, 18, 20,
    18, 19, 24, 34, 43, 35, 40, 41, 42, 42, 38, 40, 40, 37, 36, 42, 40, 63, 85, 98, 92, 103, 102, 95, 86, 70, 52, 31, 19,
  ],
  // prettier-ignore
  slowStartup2: [
    7, 2, 1, 2, 2, 3, 5, 9, 10, 10, 11, 13, 13, 10, 4, 1, 1, 2, 3, 4, 6, 9, 11, 11, 10, 14, 11, 9, 2, 1, 2, 2, 3, 4, 8, 9, 10, 11, 11, 13,
    13, 15, 14, 15, 18, 17, 19, 21, 20, 19, 18, 20, 20, 20, 20, 19, 20, 19, 19, 18, 20, 20, 19, 20, 18, 20, 21, 19, 21, 18, 19, 25, 37, 37,
    35, 41, 43, 41, 41, 40, 48, 81, 108, 91, 88, 74, 46, 19, 46, 84, 35, 14, 19, 12, 13, 18, 38, 35, 11, 4,
  ],
  // prettier-ignore
  jagged: [
    52, 106, 122, 8, 6, 117, 32, 2, 68, 34, 21, 81, 61, 86, 55, 4, 104, 21, 51, 8, 93, 90, 43, 65, 82, 31, 40, 115, 107, 13, 35, 73, 81, 67,
    31, 79, 57, 100, 55, 64, 13, 54, 18, 68, 82, 61, 11, 84, 37, 20, 68, 33, 36, 55, 68, 75, 56, 20, 41, 120, 63, 72, 102, 49, 4, 48, 69,
    50, 35, 49, 54, 19, 95, 121, 26, 78, 31, 62, 53, 123, 73, 22, 39, 72, 98, 33, 26, 5, 103, 23, 75, 35, 69, 33, 44, 12, 10, 101, 122, 19,
  ],
  // prettier-ignore
  stopping: [
    8, 20, 39, 48, 66, 71, 79, 57, 29, 5, 2, 3, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3, 6, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 6, 10, 12, 15, 19, 37, 60,
    100, 103, 98, 82, 87, 74, 65, 51, 57, 54, 61, 46, 38, 16,
  ],
  // prettier-ignore
  adjusting: [
    1, 1, 1, 3, 8, 7, 2, 2, 4, 8, 6, 3, 7, 13, 18, 19, 24, 35, 26, 14, 31, 43, 49, 55, 61, 67, 61, 50, 43, 37, 30, 16, 5, 4, 4, 3, 3, 3, 4,
    4, 3, 2, 2, 3, 10, 14, 10, 7, 5, 5,
  ],
  constant: Array(10).fill(100) as number[],
} as const
type FlowName = keyof typeof FLOWS | 'random'

/** Flow: the template scaled so that its buckets average 100 */
function flowBuckets(rng: Rng, name: FlowName): number[] {
  // FlowTemplates.random(): 100 buckets of (int)(Math.random() * 100), drawn once per factory
  const raw = name === 'random' ? Array.from({ length: 100 }, () => Math.floor(rng.next() * 100)) : FLOWS[name]
  const sum = raw.reduce((a, b) => a + b, 0)
  const k = (100 * raw.length) / sum
  return raw.map((v) => v * k)
}

/** Flow.getStepSize: the share of `distance` the buckets between `completion` and the next step hold */
function stepSize(buckets: readonly number[], distance: number, steps: number, completion: number): number {
  const from = completion * buckets.length
  const until = (completion + 1 / steps) * buckets.length
  let sum = 0
  // the Java loop reads buckets[length] when rounding puts `until` a hair past the end; the guard skips it
  for (let i = Math.floor(from); i < until && i < buckets.length; i++) {
    const end = until < i + 1 ? until - Math.floor(until) : 1
    const start = Math.floor(from) === i ? from - Math.floor(from) : 0
    sum += buckets[i] * (end - start)
  }
  return (sum * distance) / (buckets.length * 100)
}

/** the settings of a MouseMotionFactory: DefaultMouseMotionNature, changed by a FactoryTemplate */
export type Nature = {
  name: 'default' | 'average_user' | 'fast_gamer' | 'granny' | 'demo_robot'
  flows: number[][]
  baseTimeMs: number
  /** SinusoidalDeviationProvider's slope divider; 0: no deviation */
  slopeDivider: number
  /** DefaultNoiseProvider's noisiness divider; 0: no noise */
  noisinessDivider: number
  overshoots: number
  minDistanceForOvershoots: number
  minOvershootMovementMs: number
  overshootRandomDivider: number
  overshootSpeedupDivider: number
  timeToStepsDivider: number
  minSteps: number
  effectFadeSteps: number
  reactionBaseMs: number
  reactionVariationMs: number
  /** DemoRobot: time per pixel instead of the speed manager's random time */
  msPerPx?: number
}

/** DefaultMouseMotionNature's settings, as MouseMotionFactory.getDefault() uses them */
const DEFAULT_NATURE: Omit<Nature, 'flows'> = {
  name: 'default',
  baseTimeMs: 500,
  slopeDivider: 10,
  noisinessDivider: 2,
  overshoots: 3,
  minDistanceForOvershoots: 10,
  minOvershootMovementMs: 40,
  overshootRandomDivider: 20,
  overshootSpeedupDivider: 1.8,
  timeToStepsDivider: 8,
  minSteps: 10,
  effectFadeSteps: 15,
  reactionBaseMs: 20,
  reactionVariationMs: 120,
}

/**
 * getDefault() and the README's "precooked" FactoryTemplates, each with the share of scripts that use it
 * (`upTo`: cumulative) and what it changes: its flows and the settings it sets. DemoRobot rarely
 */
const TEMPLATES: { upTo: number; flows: FlowName[]; set: Partial<Nature> & Pick<Nature, 'name'> }[] = [
  {
    upTo: 0.4,
    flows: ['constant', 'variating', 'interrupted', 'interrupted2', 'slowStartup', 'slowStartup2', 'adjusting', 'jagged', 'stopping'],
    set: { name: 'default' },
  },
  {
    upTo: 0.65,
    flows: ['variating', 'interrupted', 'interrupted2', 'slowStartup', 'slowStartup2', 'adjusting', 'jagged', 'stopping'],
    set: { name: 'average_user', baseTimeMs: 400, overshoots: 4, reactionVariationMs: 110 },
  },
  {
    upTo: 0.82,
    flows: ['variating', 'slowStartup', 'slowStartup2', 'adjusting', 'jagged'],
    set: { name: 'fast_gamer', baseTimeMs: 250, overshoots: 4, reactionVariationMs: 100 },
  },
  {
    upTo: 0.96,
    flows: ['jagged', 'random', 'interrupted', 'interrupted2', 'adjusting', 'stopping'],
    set: {
      name: 'granny',
      baseTimeMs: 1000,
      slopeDivider: 9,
      noisinessDivider: 1.6,
      minDistanceForOvershoots: 3,
      minOvershootMovementMs: 400,
      overshootRandomDivider: 10,
      overshootSpeedupDivider: 3.6,
      timeToStepsDivider: 6,
      reactionBaseMs: 100,
    },
  },
  { upTo: 1, flows: ['constant'], set: { name: 'demo_robot', slopeDivider: 0, noisinessDivider: 0, overshoots: 0 } },
]

/** a factory: one of the templates at their shares, or the one named */
export function randomNature(rng: Rng, name?: Nature['name']): Nature {
  const r = name ? undefined : rng.next()
  const t = TEMPLATES.find((x) => (r === undefined ? x.set.name === name : r < x.upTo)) ?? TEMPLATES[TEMPLATES.length - 1]
  const nature: Nature = { ...DEFAULT_NATURE, flows: t.flows.map((n) => flowBuckets(rng, n)), ...t.set }
  // DemoRobot: a constant time per pixel (createDemoRobotMotionFactory's motionTimeMsPer100Pixels)
  if (t.set.name === 'demo_robot') nature.msPerPx = rng.uniform(1, 5)
  return nature
}

export type Movement = { dest: Point; distance: number; dx: number; dy: number; time: number; flow: number[] }

/** DefaultSpeedManager.getFlowWithTime: a random flow, base + random × base ms, plus a bucket's time per empty bucket */
function flowWithTime(rng: Rng, n: Nature, distance: number): { flow: number[]; time: number } {
  if (n.msPerPx !== undefined) return { flow: n.flows[0], time: Math.floor(n.msPerPx * distance) }
  let time = n.baseTimeMs + Math.floor(rng.next() * n.baseTimeMs)
  const flow = n.flows[Math.floor(rng.next() * n.flows.length)]
  const perBucket = time / flow.length
  for (const b of flow) if (Math.abs(b) < 1e-5) time += perBucket
  return { flow, time: Math.floor(time) }
}

/** MovementFactory.createMovements: overshoots around the target, the last movement onto it */
export function movements(rng: Rng, n: Nature, from: Point, to: Point): Movement[] {
  let last = { ...from }
  const initial = Math.hypot(to.x - from.x, to.y - from.y)
  const first = flowWithTime(rng, n, initial)
  const overshoots = initial < n.minDistanceForOvershoots ? 0 : n.overshoots
  if (overshoots === 0) return [{ dest: to, distance: initial, dx: to.x - from.x, dy: to.y - from.y, time: first.time, flow: first.flow }]
  const out: Movement[] = []
  let time = first.time
  for (let i = overshoots; i > 0; i--) {
    // DefaultOvershootManager.getOvershootAmount: (int)(random × m − m / 2) × overshootsRemaining, m = distance / divider
    const m = Math.hypot(to.x - last.x, to.y - last.y) / n.overshootRandomDivider
    const ox = Math.trunc(rng.next() * m - m / 2) * i
    const oy = Math.trunc(rng.next() * m - m / 2) * i
    const dest = { x: to.x + ox, y: to.y + oy }
    const dx = dest.x - last.x
    const dy = dest.y - last.y
    const distance = Math.hypot(dx, dy)
    out.push({ dest, distance, dx, dy, time, flow: flowWithTime(rng, n, distance).flow })
    last = dest
    time = Math.max(Math.floor(time / n.overshootSpeedupDivider), n.minOvershootMovementMs)
  }
  // overshoots that landed on the target itself are dropped from the end
  while (out.length > 0 && out[out.length - 1].dest.x === to.x && out[out.length - 1].dest.y === to.y) {
    const m = out.pop() as Movement
    last = { x: m.dest.x - m.dx, y: m.dest.y - m.dy }
  }
  const dx = to.x - last.x
  const dy = to.y - last.y
  const distance = Math.hypot(dx, dy)
  const final = flowWithTime(rng, n, distance)
  out.push({
    dest: to,
    distance,
    dx,
    dy,
    time: Math.max(Math.floor(final.time / n.overshootSpeedupDivider), n.minOvershootMovementMs),
    flow: final.flow,
  })
  return out
}

/** MathUtil.roundTowards */
const roundTowards = (v: number, target: number) => (target > v ? Math.ceil(v) : Math.floor(v))

/**
 * MouseMotion.move from `from` to `to`: the OS cursor's positions with their times (ms after the
 * call), a position per step and the reaction time between movements. `slack()` is how late each
 * Thread.sleep wakes.
 */
export function naturalMouseMove(rng: Rng, n: Nature, from: Point, to: Point, slack: () => number): { x: number; y: number; t: number }[] {
  const out: { x: number; y: number; t: number }[] = []
  let pos = { ...from }
  let t = 0
  for (const mv of movements(rng, n, from, to)) {
    const steps = Math.ceil(Math.min(mv.distance, Math.max(mv.time / n.timeToStepsDivider, n.minSteps)))
    const stepTime = Math.floor(mv.time / steps)
    const start = t
    let simX = pos.x
    let simY = pos.y
    const devX = (rng.next() - 0.5) * 2
    const devY = (rng.next() - 0.5) * 2
    let doneX = 0
    let doneY = 0
    let noiseX = 0
    let noiseY = 0
    for (let i = 0; i < steps; i++) {
      const tc = i / steps
      const fadeStep = Math.max(i - (steps - n.effectFadeSteps) + 1, 0)
      const fade = (n.effectFadeSteps - fadeStep) / n.effectFadeSteps
      const sx = stepSize(mv.flow, mv.dx, steps, tc)
      const sy = stepSize(mv.flow, mv.dy, steps, tc)
      doneX += sx
      doneY += sy
      const completion = Math.min(1, Math.hypot(doneX, doneY) / mv.distance)
      // DefaultNoiseProvider: on steps under 8 px, sometimes, a nudge that accumulates
      const size = Math.hypot(sx, sy)
      if (n.noisinessDivider > 0 && size > 1e-5 && rng.next() < Math.max(0, 8 - size) / 50) {
        noiseX += ((rng.next() - 0.5) * Math.max(0, 8 - size)) / n.noisinessDivider
        noiseY += ((rng.next() - 0.5) * Math.max(0, 8 - size)) / n.noisinessDivider
      }
      // SinusoidalDeviationProvider: an arc of up to distance / slopeDivider
      const dev = n.slopeDivider > 0 ? ((1 - Math.cos(completion * Math.PI * 2)) / 2) * (mv.distance / n.slopeDivider) : 0
      simX += sx
      simY += sy
      const x = roundTowards(simX + dev * devX * fade + noiseX * fade, mv.dest.x)
      const y = roundTowards(simY + dev * devY * fade + noiseY * fade, mv.dest.y)
      // the move happens at once; the loop then sleeps until start + stepTime × (i + 1). A move to
      // the pixel the cursor is on makes no OS event, so the page sees nothing
      if (x !== pos.x || y !== pos.y) out.push({ x, y, t: start + stepTime * i + (i === 0 ? 0 : slack()) })
      pos = { x, y }
    }
    t = start + stepTime * steps + slack()
    // landing off the movement's end is corrected with one more move (MouseMotion's adjustment, 2 ms sleep)
    if (pos.x !== mv.dest.x || pos.y !== mv.dest.y) {
      pos = { ...mv.dest }
      out.push({ ...pos, t })
      t += 2 + slack()
    }
    if (pos.x !== to.x || pos.y !== to.y) t += n.reactionBaseMs + rng.next() * n.reactionVariationMs + slack()
  }
  return out
}

/** how late Thread.sleep wakes: a fraction of a ms, or up to a tick of Windows' default timer resolution */
export function sleepSlack(rng: Rng): () => number {
  const windows = rng.chance(0.3)
  return () => (windows ? rng.uniform(0, 2) : rng.uniform(0.05, 0.6))
}

function naturalMouseScript(rng: Rng): Script & { drag: number } {
  const nature = randomNature(rng)
  const slack = sleepSlack(rng)
  const move = (visit: Visit, dest: Point) => {
    const from = { x: Math.round(visit.pos.x), y: Math.round(visit.pos.y) }
    const to = { x: Math.round(dest.x), y: Math.round(dest.y) }
    visit.playTimed(naturalMouseMove(rng, nature, from, to, slack))
  }
  const sleep = authorSleep(rng)
  return {
    moveTo: (visit, dest) => move(visit, dest),
    aim: (_visit, b) => ({ x: b.x + rng.uniform(0.15, 0.85) * b.width, y: b.y + rng.uniform(0.15, 0.85) * b.height }),
    // robot.mousePress and mouseRelease back to back, or with a Thread.sleep between
    hold: rng.chance(0.5) ? () => rng.uniform(0.05, 2) : () => rng.uniform(50, 150),
    hesitate: () => rng.uniform(0, 80),
    sleep,
    // slider CAPTCHAs and drawing tasks: the button held through one or more moves
    drag: rng.chance(0.5) ? rng.uniform(0.05, 0.3) : 0,
  }
}

/** vertex i of a k-gon of radius r round c, from angle `phase`, `turn` 1 or −1 for the way round */
const polygonVertex =
  (c: Point, r: number, k: number, phase: number, turn: number) =>
  (i: number): Point => ({
    x: c.x + r * Math.cos(phase + (turn * 2 * Math.PI * i) / k),
    y: c.y + r * Math.sin(phase + (turn * 2 * Math.PI * i) / k),
  })

/**
 * a page visit of a Java (Selenium + Robot) script moving with NaturalMouseMotion. Some of its actions
 * are drags with the button held: through 0–5 random waypoints (a slider, drag and drop) or 10–20 (a
 * scribble), or around a polygon of 3–36 points (a drawing challenge). DELBOT's published bot script
 * (python/botDrawing.py) drew its NaturalMouseMotion recordings both ways: 3, 5 or 8 points on a circle,
 * and 10–20 random points, with the button held
 */
export function naturalMouseVisit(rng: Rng): Signal[] {
  const script = naturalMouseScript(rng)
  const opts = randomVisitOptions(rng, undefined, false)
  if (script.drag === 0) return runVisit(rng, script, opts)
  return runVisit(
    rng,
    {
      ...script,
      moveTo(visit, dest, box) {
        if (!box || !rng.chance(script.drag)) return script.moveTo(visit, dest, box)
        let ways: Point[]
        if (rng.chance(0.5)) {
          ways = Array.from({ length: rng.chance(0.5) ? rng.int(0, 5) : rng.int(10, 20) }, () => ({
            x: rng.uniform(20, visit.viewport.w - 20),
            y: rng.uniform(20, visit.viewport.h - 20),
          }))
        } else {
          const r = rng.uniform(50, Math.min(250, visit.viewport.h / 2 - 30))
          const c = { x: rng.uniform(r + 20, visit.viewport.w - r - 20), y: rng.uniform(r + 20, visit.viewport.h - r - 20) }
          const k = rng.chance(0.3) ? rng.pick([3, 5, 8]) : rng.int(8, 36)
          const phase = rng.uniform(0, 2 * Math.PI)
          const turn = rng.chance(0.5) ? 1 : -1
          const on = polygonVertex(c, r, k, phase, turn)
          script.moveTo(visit, on(0), null)
          visit.sleep(script.hesitate())
          ways = Array.from({ length: k }, (_, i) => on(i + 1))
        }
        visit.press()
        for (const w of ways) {
          if (visit.full) break
          script.moveTo(visit, w, null)
        }
        if (ways.length === 0 || rng.chance(0.5)) script.moveTo(visit, dest, box)
        visit.sleep(script.hesitate())
        visit.release()
      },
    },
    opts
  )
}

/**
 * A drawing challenge solved as DELBOT's bot script ran NaturalMouseMotion (python/botDrawing.py, move_type 5),
 * the whole page a session: pyautogui jumps the cursor to the first point (then its 0.1 s PAUSE), the button
 * goes down, a JVM starts and moves with one factory through 10–20 random points of the canvas and back to
 * the first (the script's FastGamerMotion half the time, else any template), or round a 3-, 5- or 8-gon (the
 * script's commented-out variant), and the button comes up on the canvas. One to four drawings, Selenium's
 * export click between them (no pointer event). Unlike a drag inside a page visit, the session is nothing
 * but these long strokes of pointing movements with the button held.
 */
export function naturalMouseDrawing(rng: Rng): Signal[] {
  const visit = new Visit(rng, randomVisitOptions(rng, undefined, false))
  const nature = rng.chance(0.5) ? randomNature(rng, 'fast_gamer') : randomNature(rng)
  const slack = sleepSlack(rng)
  const { w, h } = visit.viewport
  const drawings = rng.int(1, 4)
  for (let d = 0; d < drawings && !visit.full; d++) {
    let points: Point[]
    if (rng.chance(0.7)) {
      // the script's canvas region (885–3036 × 504–1423 device px over 2.5) as shares of the viewport
      points = Array.from({ length: rng.int(10, 20) }, () => ({
        x: Math.round(rng.uniform(0.23, 0.79) * w),
        y: Math.round(rng.uniform(0.23, 0.66) * h),
      }))
    } else {
      const r = rng.uniform(60, Math.min(250, h / 2 - 30))
      const c = { x: w / 2, y: h / 2.2 }
      const k = rng.pick([3, 5, 8])
      const on = polygonVertex(c, r, k, rng.uniform(0, 2 * Math.PI), 1)
      points = Array.from({ length: k }, (_, i) => {
        const v = on(i)
        return { x: Math.round(v.x), y: Math.round(v.y) }
      })
    }
    drawThrough(rng, visit, nature, slack, points, true)
    visit.sleep(rng.uniform(200, 2000))
  }
  return visit.finish()
}

/**
 * One drawing of DELBOT's script: pyautogui jumps the cursor to the first point (then its 0.1 s PAUSE), the
 * button goes down, a JVM starts and moves through the other points and back to the first, the button
 * comes up (`click`: on the element it went down on, so the browser fires a click)
 */
export function drawThrough(rng: Rng, visit: Visit, nature: Nature, slack: () => number, points: readonly Point[], click: boolean): void {
  visit.playPath([points[0]], () => 0)
  visit.sleep(100 + rng.uniform(0.05, 1.5))
  visit.press()
  // subprocess.run starts the JVM, which loads the jar before its first move
  visit.sleep(rng.uniform(300, 900))
  for (const p of [...points.slice(1), points[0]]) {
    if (visit.full) break
    const from = { x: Math.round(visit.pos.x), y: Math.round(visit.pos.y) }
    visit.playTimed(naturalMouseMove(rng, nature, from, p, slack))
  }
  // the JVM exits, then pyHM's mouse.up
  visit.sleep(rng.uniform(30, 200))
  visit.release(click)
}

/** the share of the family's sessions that are DELBOT's drawing task (naturalMouseDrawing) */
const DRAWING_SHARE = 0.3

/** the `natural_mouse_motion` family: page visits, and a share of drawing-task pages */
export const naturalMouseSession = (rng: Rng): Signal[] => (rng.chance(DRAWING_SHARE) ? naturalMouseDrawing(rng) : naturalMouseVisit(rng))
