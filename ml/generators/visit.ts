// A page visit driven by a bot script: the browser page, the clock, and how the
// points a library computes reach the page as events. A script moves to
// targets, clicks, scrolls and types, with the random sleeps bot authors put
// between actions. Pointer points reach the page in one of three ways:
//  - `awaited`: CDP Input.dispatchMouseEvent awaited one by one, as Puppeteer,
//    Playwright and ghost-cursor send moves. Chrome answers a move once the
//    page has handled it, at its next animation frame, so every point is its
//    own pointermove (`n` = 1) and points come one frame apart however short
//    the script's sleep (measured in Chromium 156: ml/experiments/browser-bots.ts,
//    median gap 16.6–16.7 ms for every tool, the interquartile range 16.1–17.2);
//  - `frames`: points dispatched without waiting for each other (a timer loop,
//    or the OS cursor) are coalesced into one pointermove per frame carrying
//    the number of points `n` and the time of the last one;
//  - `each`: every dispatched point is its own pointermove at its own time (a
//    driver or browser that does not hold moves for a frame; an assumption).
import type { KeyClass, Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'
import { clamp } from './random'

export type Point = { x: number; y: number }
/** a clickable box, top-left corner and size in CSS px (the shape Puppeteer's boundingBox() returns) */
export type Box = { x: number; y: number; width: number; height: number }
export type TimedPoint = Point & { t: number }

export type Delivery = { kind: 'each' } | { kind: 'frames' | 'awaited'; frameMs: number; phase: number }

export type VisitOptions = {
  delivery: Delivery
  /** the page clock's resolution, ms (Chrome 0.1, Firefox/Safari 1) */
  clockMs: number
  /** headless browsers report screen = client coordinates */
  sc: boolean
  viewport: { w: number; h: number }
}

const VIEWPORTS = [
  { w: 1280, h: 720 },
  { w: 1366, h: 768 },
  { w: 1920, h: 1080 },
  { w: 1536, h: 864 },
  { w: 1440, h: 900 },
  { w: 800, h: 600 },
] as const

/**
 * the browser set-ups bot scripts run in: mostly Chrome, headless or not. `awaits`: a driver
 * dispatches each point and waits for it (awaited, else coalesced or each on its own); otherwise a
 * timer loop or a tool moving the system cursor sends points without waiting (coalesced per frame or not).
 */
export function randomVisitOptions(rng: Rng, delivery?: Delivery['kind'], awaits = true): VisitOptions {
  const u = delivery ? 0 : rng.next()
  const kind = delivery ?? (!awaits ? (u < 0.65 ? 'frames' : 'each') : u < 0.45 ? 'awaited' : u < 0.85 ? 'frames' : 'each')
  return {
    delivery: kind === 'each' ? { kind } : { kind, frameMs: 1000 / rng.pick([60, 60, 60, 75, 120, 144]), phase: rng.uniform(0, 16) },
    clockMs: rng.pick([0.1, 0.1, 0.1, 1]),
    sc: rng.chance(0.3),
    viewport: rng.pick(VIEWPORTS),
  }
}

/** a box somewhere on the page: buttons, links, fields */
export function randomBox(rng: Rng, viewport: { w: number; h: number }, kind: 'button' | 'field' = 'button'): Box {
  const width = kind === 'field' ? rng.uniform(140, 420) : rng.uniform(24, 220)
  const height = kind === 'field' ? rng.uniform(28, 44) : rng.uniform(18, 56)
  return { x: rng.uniform(8, viewport.w - width - 8), y: rng.uniform(8, viewport.h - height - 8), width, height }
}

export const boxCentre = (b: Box): Point => ({ x: b.x + b.width / 2, y: b.y + b.height / 2 })

/** a script's aim: a point in the middle three fifths of the target box each way, as scripts pick one from its bounding box */
export const aimInMiddle =
  (rng: Rng) =>
  (_visit: Visit, b: Box): Point => ({ x: b.x + rng.uniform(0.2, 0.8) * b.width, y: b.y + rng.uniform(0.2, 0.8) * b.height })

/** click offset inside the target, −1…1 from its centre (the `ox`, `oy` of a click) */
function offsetIn(p: Point, b: Box): { ox: number; oy: number } {
  const c = boxCentre(b)
  return { ox: clamp((p.x - c.x) / (b.width / 2), -1, 1), oy: clamp((p.y - c.y) / (b.height / 2), -1, 1) }
}

/** keeps a session under the ingest limit of 10,000 events per batch */
export const MAX_EVENTS = 9000

export class Visit {
  /** the script's clock, ms since the session start */
  t: number
  pos: Point
  readonly viewport: { w: number; h: number }
  private readonly events: Signal[] = []
  /** points dispatched since the last frame boundary (frames delivery) */
  private pending: { p: Point; t: number; count: number } | null = null
  private frameEnd = 0

  constructor(
    readonly rng: Rng,
    readonly opts: VisitOptions
  ) {
    this.viewport = opts.viewport
    this.t = rng.uniform(150, 2500)
    this.pos = { x: rng.uniform(0, this.viewport.w), y: rng.uniform(0, this.viewport.h) }
  }

  get full(): boolean {
    return this.events.length >= MAX_EVENTS
  }

  private emit(e: Signal): void {
    this.events.push(this.opts.sc && e.x !== undefined ? { ...e, sc: 1 } : e)
  }

  /** one pointer point reaches the browser at time `t` (with the event time `stamp` when the driver sets one) */
  private dispatch(p: Point, t: number, stamp?: number): void {
    this.t = t
    this.pos = p
    // a pointer outside the viewport (an overshoot past the edge) sends the page nothing
    if (p.x < 0 || p.y < 0 || p.x > this.viewport.w || p.y > this.viewport.h) return
    const d = this.opts.delivery
    if (d.kind === 'each') {
      this.emit({ t, k: 'mm', x: p.x, y: p.y, n: 1 })
      return
    }
    if (d.kind === 'awaited') {
      this.emit({ t: stamp ?? t, k: 'mm', x: p.x, y: p.y, n: 1 })
      // the await returns after the page's next frame has handled the move
      this.t = frameEndAt(d, t + 0.5) + this.rng.uniform(0.1, 1)
      return
    }
    if (this.pending && t > this.frameEnd) this.flushFrame()
    if (!this.pending) {
      this.frameEnd = frameEndAt(d, t)
      this.pending = { p, t, count: 0 }
    }
    this.pending = { p, t, count: this.pending.count + 1 }
  }

  private flushFrame(): void {
    if (!this.pending) return
    const { p, t, count } = this.pending
    this.emit({ t, k: 'mm', x: p.x, y: p.y, n: count })
    this.pending = null
  }

  /** points dispatched one after another, each `gap()` ms after the previous one */
  playPath(points: readonly Point[], gap: () => number): void {
    for (const p of points) {
      if (this.full) break
      this.dispatch(p, this.t + Math.max(0, gap()))
    }
    this.flushFrame()
  }

  /**
   * points dispatched at their own times, ms relative to now (or later, when an awaited dispatch is still
   * under way); `stamped`: the driver sets each event's time to the point's own (CDP's `timestamp`)
   */
  playTimed(points: readonly TimedPoint[], stamped = false): void {
    const start = this.t
    for (const p of points) {
      if (this.full) break
      // never before the previous dispatch (dispatch leaves this.t at or after its own time)
      this.dispatch(p, Math.max(this.t, start + p.t), stamped ? start + p.t : undefined)
    }
    this.flushFrame()
  }

  sleep(ms: number): void {
    this.t += Math.max(0, ms)
  }

  /** mouse down, hold, up and the click that follows, at the current position */
  click(target: Box | null, holdMs: number, count = 1): void {
    for (let i = 0; i < count; i++) {
      this.emit({ t: this.t, k: 'md', x: this.pos.x, y: this.pos.y })
      this.t += Math.max(0, holdMs)
      this.emit({ t: this.t, k: 'mu', x: this.pos.x, y: this.pos.y })
      this.emit({ t: this.t, k: 'c', x: this.pos.x, y: this.pos.y, ...(target ? offsetIn(this.pos, target) : {}) })
      if (i + 1 < count) this.t += this.rng.uniform(1, 5)
    }
  }

  /** the button pressed at the current position (a drag starts; `release` ends it) */
  press(): void {
    this.emit({ t: this.t, k: 'md', x: this.pos.x, y: this.pos.y })
  }

  /**
   * the button released after a drag; with `click` the browser's click follows, as when the press and the
   * release were on one element (a canvas drawn on), else none (dropped on another element)
   */
  release(click = false): void {
    this.emit({ t: this.t, k: 'mu', x: this.pos.x, y: this.pos.y })
    if (click) this.emit({ t: this.t, k: 'c', x: this.pos.x, y: this.pos.y })
  }

  wheel(dy: number): void {
    this.emit({ t: this.t, k: 's', dy })
  }

  key(kc: KeyClass, down: number, up: number): void {
    this.emit({ t: down, k: 'kd', kc })
    this.emit({ t: Math.max(down, up), k: 'ku', kc })
  }

  /** events in time order (stable), on the page clock's grid; positions to 0.1 px as the SDK sends them */
  finish(): Signal[] {
    this.flushFrame()
    const per = Math.round(1 / this.opts.clockMs)
    return finishEvents(this.events, per)
  }
}

/** the end of the animation frame that time `t` falls in (a boundary itself counts as the end) */
const frameEndAt = (d: { frameMs: number; phase: number }, t: number) => d.phase + Math.ceil((t - d.phase) / d.frameMs) * d.frameMs

/** sorts stably by time and rounds: t down to the clock grid (browsers floor coarse timers), x/y/dy to 0.1, ox/oy to 0.001 */
export function finishEvents(events: readonly Signal[], perMs: number): Signal[] {
  return [...events]
    .sort((a, b) => a.t - b.t)
    .map((e) => {
      const out: Signal = { ...e, t: Math.max(0, Math.floor(e.t * perMs + 1e-9) / perMs) }
      for (const k of ['x', 'y', 'dy'] as const) if (e[k] !== undefined) out[k] = Math.round(e[k] * 10) / 10
      for (const k of ['ox', 'oy'] as const) if (e[k] !== undefined) out[k] = Math.round(e[k] * 1000) / 1000
      return out
    })
}

/** a script's idea of a pause: the random sleep bot authors put between actions */
export type Sleeper = () => number

export function authorSleep(rng: Rng): Sleeper {
  const r = rng.next()
  const a = rng.uniform(100, 1500)
  const b = a + rng.uniform(300, 4000)
  if (r < 0.5) return () => rng.uniform(a, b)
  if (r < 0.75) return () => rng.logNormal(a + (b - a) / 3, rng.uniform(0.3, 0.6))
  const fixed = rng.pick([500, 1000, 2000, 3000])
  return () => fixed + rng.uniform(0, 2)
}

/** a text-like sequence of key classes: words, spaces, capitals (Shift), digits, a few fixed typos */
export function textKeys(rng: Rng, length: number, opts: { shift?: boolean; backspace?: number } = {}): KeyClass[] {
  const kind = rng.pick(['words', 'words', 'words', 'digits', 'email'] as const)
  const out: KeyClass[] = []
  let word = 0
  let wordLength = rng.int(2, 9)
  while (out.length < length) {
    if (kind === 'digits') {
      out.push('digit')
      continue
    }
    if (kind === 'words' && word >= wordLength) {
      out.push('space')
      word = 0
      wordLength = rng.int(1, 10)
      continue
    }
    if (opts.shift && word === 0 && kind === 'words' && rng.chance(0.12)) out.push('mod')
    out.push(kind === 'email' && rng.chance(0.1) ? 'digit' : 'char')
    if (opts.backspace && rng.chance(opts.backspace)) out.push('back')
    word++
  }
  return out.slice(0, length)
}

/** a scroll the way scripts do it: wheel ticks of one size (mouse.wheel), or a few big jumps */
export function scriptedScroll(rng: Rng, visit: Visit): void {
  const step = rng.pick([100, 100, 120, 200, 250, 500])
  const ticks = rng.int(1, 8)
  const sign = rng.chance(0.8) ? 1 : -1
  const gap = rng.chance(0.5) ? () => rng.uniform(1, 4) : () => rng.uniform(50, 400)
  for (let i = 0; i < ticks; i++) {
    visit.sleep(gap())
    visit.wheel(sign * step)
  }
}

/** what one scripted visit does between its sleeps */
export type Script = {
  /** moves the cursor to `dest` (inside `box` when it is a target) */
  moveTo(visit: Visit, dest: Point, box: Box | null): void
  /** chooses where in a target box to aim */
  aim(visit: Visit, box: Box): Point
  /** mouse-down to mouse-up, ms */
  hold(): number
  /** before the press, after arriving */
  hesitate(): number
  /** the pause between two actions */
  sleep: Sleeper
  /** types key classes into a focused field, or undefined when the script does not type */
  type?: (visit: Visit, keys: KeyClass[]) => void
  scroll?: (visit: Visit) => void
  /** share of actions that are plain moves without a click */
  hover?: number
}

/** a page visit of 5–60 s: moves to targets, clicks, scrolls and typing between random sleeps */
export function runVisit(rng: Rng, script: Script, opts: VisitOptions = randomVisitOptions(rng)): Signal[] {
  const visit = new Visit(rng, opts)
  const end = visit.t + rng.uniform(5000, 60_000)
  let first = true
  while (visit.t < end && !visit.full) {
    if (!first) visit.sleep(script.sleep())
    first = false
    const r = rng.next()
    if (script.scroll && r < 0.12) {
      script.scroll(visit)
      continue
    }
    if (script.type && r < 0.24) {
      const field = randomBox(rng, visit.viewport, 'field')
      const aim = script.aim(visit, field)
      script.moveTo(visit, aim, field)
      visit.sleep(script.hesitate())
      visit.click(field, script.hold())
      visit.sleep(rng.uniform(50, 600))
      script.type(visit, textKeys(rng, rng.int(4, 40), { shift: rng.chance(0.3) }))
      continue
    }
    const box = randomBox(rng, visit.viewport)
    const aim = script.aim(visit, box)
    script.moveTo(visit, aim, box)
    if (rng.chance(script.hover ?? 0.15)) continue
    visit.sleep(script.hesitate())
    visit.click(box, script.hold())
  }
  return visit.finish()
}
