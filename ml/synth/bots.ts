// Synthetic bot sessions, one generator per named family. Each family is a
// style of automation seen in the wild (Puppeteer/Playwright defaults,
// "humanising" cursor libraries, DevTools-protocol scripts, dispatchEvent
// scripts, replayers, mobile emulation). Within a family the parameters are
// drawn per session and many sessions add timer jitter or position noise, so
// no single constant gives a family away.
import type { KeyClass, Signal } from '../../src/scoring/signals'
import { humanSession } from './human'
import type { Rng } from './prng'
import {
  type Actor,
  type ActionWeights,
  type KeyToken,
  type Point,
  type Target,
  Recorder,
  erf,
  quantise,
  runSession,
  targetOffset,
} from './session'

type Profile = (u: number) => number

const cdf = (z: number) => 0.5 * (1 + erf(z / Math.SQRT2))

const PROFILES = {
  constant: (u: number) => u,
  easeInQuad: (u: number) => u * u,
  easeInCubic: (u: number) => u ** 3,
  easeInOutCubic: (u: number) => (u < 0.5 ? 4 * u ** 3 : 1 - (-2 * u + 2) ** 3 / 2),
  easeInOutSine: (u: number) => -(Math.cos(Math.PI * u) - 1) / 2,
  minJerk: (u: number) => 10 * u ** 3 - 15 * u ** 4 + 6 * u ** 5,
  /** bell-shaped speed: the normal CDF around the middle of the move, rescaled to 0…1 */
  gaussian: (u: number) => (cdf((u - 0.5) / 0.17) - cdf(-0.5 / 0.17)) / (cdf(0.5 / 0.17) - cdf(-0.5 / 0.17)),
}

type MoveStyle = {
  curve: number
  profile: Profile
  duration: (distance: number, width: number) => number
  interval: () => number
  jitter: number
  tremor?: { amp: number; hz: number }
  overshoot: number
  coalesced?: () => number
}

type BotStyle = {
  /** undefined: the cursor teleports (no moves at all) */
  move?: MoveStyle
  /** one move to the target right before pressing, as `page.click()` does */
  hover: boolean
  dwell: () => number
  hold: () => number
  offset: () => number
  latency: () => number
  keyHold: () => number
  /** key up before the next key down (a `for` loop with awaits), else keys are scheduled on their own clock */
  sequential: boolean
  unidentifiedKeys: boolean
  scroll: (bot: BotActor) => void
  think: () => number
  actions: ActionWeights
  clock: number
  sc: boolean
  untrusted: number
  touch?: TouchStyle
}

type TouchStyle = { radius: () => number; pressure: () => number; profile: Profile; interval: () => number }

/** cubic Bézier from a to b with control points off the chord, walked by arc length */
function bezier(rng: Rng, a: Point, b: Point, curve: number): (s: number) => Point {
  const dx = b.x - a.x
  const dy = b.y - a.y
  const c1 = {
    x: a.x + dx * rng.uniform(0.2, 0.4) - dy * rng.uniform(-curve, curve),
    y: a.y + dy * rng.uniform(0.2, 0.4) + dx * rng.uniform(-curve, curve),
  }
  const c2 = {
    x: a.x + dx * rng.uniform(0.6, 0.8) - dy * rng.uniform(-curve, curve),
    y: a.y + dy * rng.uniform(0.6, 0.8) + dx * rng.uniform(-curve, curve),
  }
  const at = (u: number): Point => {
    const v = 1 - u
    return {
      x: v ** 3 * a.x + 3 * v * v * u * c1.x + 3 * v * u * u * c2.x + u ** 3 * b.x,
      y: v ** 3 * a.y + 3 * v * v * u * c1.y + 3 * v * u * u * c2.y + u ** 3 * b.y,
    }
  }
  const steps = 64
  const lengths = [0]
  for (let i = 1; i <= steps; i++) {
    const p = at((i - 1) / steps)
    const q = at(i / steps)
    lengths.push(lengths[i - 1] + Math.hypot(q.x - p.x, q.y - p.y))
  }
  const total = lengths[steps]
  return (s) => {
    const target = s * total
    let i = 1
    while (i < steps && lengths[i] < target) i++
    const span = lengths[i] - lengths[i - 1]
    return at((i - 1 + (span > 0 ? (target - lengths[i - 1]) / span : 0)) / steps)
  }
}

class BotActor implements Actor {
  t: number
  viewport: { w: number; h: number }
  pos: Point
  readonly rec: Recorder
  readonly dpr: number

  constructor(
    readonly rng: Rng,
    readonly style: BotStyle
  ) {
    this.rec = new Recorder(style.clock)
    this.dpr = rng.pick([1, 1, 1.25, 2])
    this.viewport = style.touch
      ? { w: rng.uniform(360, 430), h: rng.uniform(640, 932) }
      : { w: rng.pick([1280, 1366, 1440, 1920, 800]), h: rng.pick([720, 768, 900, 1080, 600]) }
    this.pos = { x: rng.uniform(0, this.viewport.w), y: rng.uniform(0, this.viewport.h) }
    this.t = rng.uniform(20, 1500)
  }

  emit(event: Signal): void {
    const mouse = event.k === 'mm' || event.k === 'md' || event.k === 'mu' || event.k === 'c'
    this.rec.push({
      ...event,
      ...(mouse && this.style.sc ? { sc: 1 } : {}),
      ...(this.rng.chance(this.style.untrusted) ? { tr: false } : {}),
    })
  }

  private point(k: Signal['k'], extra: Partial<Signal> = {}): void {
    this.emit({ t: this.t, k, x: quantise(this.pos.x, this.dpr), y: quantise(this.pos.y, this.dpr), ...extra })
  }

  moveTo(to: Point, width: number): void {
    const m = this.style.move
    if (!m) return
    const { rng } = this
    const distance = Math.hypot(to.x - this.pos.x, to.y - this.pos.y)
    if (distance > 200 && rng.chance(m.overshoot)) {
      const past = rng.uniform(1.03, 1.12)
      this.glide({ x: this.pos.x + (to.x - this.pos.x) * past, y: this.pos.y + (to.y - this.pos.y) * past }, m, width)
      this.t += rng.uniform(20, 120)
    }
    this.glide(to, m, width)
  }

  private glide(to: Point, m: MoveStyle, width: number): void {
    const { rng } = this
    const from = this.pos
    const path = bezier(rng, from, to, m.curve)
    const duration = Math.max(1, m.duration(Math.hypot(to.x - from.x, to.y - from.y), width))
    const start = this.t
    for (let u = 0; u < 1; ) {
      this.t += m.interval()
      u = Math.min(1, (this.t - start) / duration)
      const p = path(m.profile(u))
      const phase = (this.t / 1000) * 2 * Math.PI
      const wobble = u < 1 ? m.tremor : undefined
      const noise = u < 1 ? m.jitter : 0
      this.pos = {
        x: p.x + rng.normal(0, noise) + (wobble ? wobble.amp * Math.sin(phase * wobble.hz) : 0),
        y: p.y + rng.normal(0, noise) + (wobble ? wobble.amp * Math.cos(phase * wobble.hz * 1.1) : 0),
      }
      this.point('mm', m.coalesced ? { n: m.coalesced() } : {})
    }
    this.pos = to
  }

  click(target: Target): void {
    const { rng, style } = this
    const aim = { x: target.x + (style.offset() * target.w) / 2, y: target.y + (style.offset() * target.h) / 2 }
    if (style.touch) {
      this.tap(target, aim)
      return
    }
    this.moveTo(aim, target.w)
    if (!style.move && style.hover) {
      this.pos = aim
      this.t += rng.uniform(0.1, 2)
      this.point('mm')
    }
    this.pos = aim
    this.t += style.dwell()
    this.point('md')
    this.t += style.hold()
    this.point('mu')
    this.point('c', targetOffset(aim, target))
  }

  private tap(target: Target, aim: Point): void {
    const touch = this.style.touch!
    const at = { x: quantise(aim.x, this.dpr), y: quantise(aim.y, this.dpr) }
    this.emit({ t: this.t, k: 'ts', ...at, r: touch.radius(), p: touch.pressure() })
    this.t += this.style.hold()
    this.emit({ t: this.t, k: 'te', ...at, r: touch.radius(), p: touch.pressure() })
    this.t += this.style.dwell()
    this.emit({ t: this.t, k: 'c', ...at, ...targetOffset(aim, target) })
  }

  type(tokens: KeyToken[]): void {
    const { style } = this
    let down = this.t
    for (const tok of tokens) {
      const kc: KeyClass = style.unidentifiedKeys ? 'other' : tok.kc
      down += style.latency()
      const hold = style.keyHold()
      this.emit({ t: down, k: 'kd', kc })
      this.emit({ t: down + hold, k: 'ku', kc })
      if (style.sequential) down += hold
    }
    this.t = down + 50
  }

  /** a scripted finger drag */
  swipe(length: number): void {
    const touch = this.style.touch!
    const { rng } = this
    const from = { x: rng.uniform(0.2, 0.8) * this.viewport.w, y: rng.uniform(0.5, 0.85) * this.viewport.h }
    const to = { x: from.x + rng.normal(0, 10), y: from.y - length }
    const duration = rng.uniform(80, 400)
    const start = this.t
    this.emit({ t: start, k: 'ts', x: quantise(from.x, this.dpr), y: quantise(from.y, this.dpr), r: touch.radius(), p: touch.pressure() })
    for (let u = 0; u < 1; ) {
      this.t += touch.interval()
      u = Math.min(1, (this.t - start) / duration)
      const s = touch.profile(u)
      const p = { x: from.x + (to.x - from.x) * s, y: from.y + (to.y - from.y) * s }
      this.emit({
        t: this.t,
        k: u < 1 ? 'tm' : 'te',
        x: quantise(p.x, this.dpr),
        y: quantise(p.y, this.dpr),
        r: touch.radius(),
        p: touch.pressure(),
      })
    }
  }

  scroll(): void {
    this.style.scroll(this)
  }

  wander(): void {
    const { rng } = this
    if (this.style.touch) {
      this.swipe(rng.uniform(30, 120))
      return
    }
    this.moveTo({ x: rng.uniform(0, this.viewport.w), y: rng.uniform(0, this.viewport.h) }, 100)
  }

  idle(): void {
    this.t += this.rng.uniform(500, 5000)
  }

  think(): void {
    this.t += this.style.think()
  }

  finish(): Signal[] {
    return this.rec.finish()
  }
}

/** scroll styles: wheel ticks at a fixed pace, `window.scrollBy` jumps, constant-step smooth scroll, synthetic momentum */
const SCROLLS = {
  fixed: (step: number, gap: () => number) => (bot: BotActor) => {
    for (let i = bot.rng.int(2, 10); i > 0; i--) {
      bot.t += gap()
      bot.emit({ t: bot.t, k: 's', dy: step })
    }
  },
  scrollBy: (bot: BotActor) => {
    bot.t += bot.rng.uniform(1, 30)
    bot.emit({ t: bot.t, k: 's', dy: bot.rng.int(3, 15) * 100 })
  },
  smooth: (step: number, gap: () => number) => (bot: BotActor) => {
    for (let i = bot.rng.int(10, 60); i > 0; i--) {
      bot.t += gap()
      bot.emit({ t: bot.t, k: 's', dy: step })
    }
  },
  momentum: (bot: BotActor) => {
    const { rng } = bot
    let v = rng.uniform(10, 50)
    const decay = rng.uniform(0.9, 0.96)
    while (v >= 0.5) {
      bot.t += 16.7 + rng.normal(0, 0.5)
      bot.emit({ t: bot.t, k: 's', dy: v })
      v *= decay
    }
  },
  swipe: (bot: BotActor) => bot.swipe(bot.rng.uniform(100, 500)),
}

const fixed = (v: number) => () => v
const timerJitter = (rng: Rng, v: number) => () => v + rng.uniform(0.1, 1.5)
const between = (rng: Rng, a: number, b: number) => () => rng.uniform(a, b)
const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v))

const BASE_ACTIONS: ActionWeights = { click: 0.45, type: 0.15, scroll: 0.2, wander: 0.15, idle: 0.05 }
const FORM_ACTIONS: ActionWeights = { click: 0.25, type: 0.6, scroll: 0.1, wander: 0.05, idle: 0 }

function baseStyle(rng: Rng): BotStyle {
  return {
    hover: false,
    dwell: between(rng, 0, 3),
    hold: between(rng, 0.1, 2),
    offset: rng.chance(0.6) ? fixed(0) : between(rng, -0.8, 0.8),
    latency: timerJitter(rng, rng.pick([0, 10, 50, 100])),
    keyHold: between(rng, 0.1, 1.5),
    sequential: true,
    unidentifiedKeys: false,
    scroll: rng.chance(0.5) ? SCROLLS.fixed(100, timerJitter(rng, 100)) : SCROLLS.scrollBy,
    think: between(rng, 200, 1500),
    actions: BASE_ACTIONS,
    clock: rng.pick([0.1, 0.1, 0.1, 1, 0.005]),
    sc: rng.chance(0.25),
    untrusted: 0,
  }
}

/** speed-based duration, px per ms */
const atSpeed = (speed: number) => (d: number) => d / speed

/** the pace of a timer loop: a fixed period, optionally with timer jitter, or CDP round trips */
function loopInterval(rng: Rng): () => number {
  const r = rng.next()
  if (r < 0.35) return timerJitter(rng, rng.pick([10, 16, 16.7, 20, 25]))
  if (r < 0.6) return fixed(rng.pick([10, 16, 20]))
  if (r < 0.85) return between(rng, 8, 25)
  return between(rng, 1, 4)
}

function curvedMove(rng: Rng, profile: Profile): MoveStyle {
  return {
    curve: rng.uniform(0.1, 0.5),
    profile,
    duration: atSpeed(rng.uniform(0.4, 2.5)),
    interval: rng.chance(0.5) ? () => Math.max(1, rng.normal(16.7, 2)) : loopInterval(rng),
    jitter: rng.chance(0.5) ? rng.uniform(0.3, 2) : 0,
    overshoot: 0,
  }
}

function curvedBotStyle(rng: Rng, profile: Profile): BotStyle {
  const lo = rng.uniform(30, 150)
  return {
    ...baseStyle(rng),
    move: curvedMove(rng, profile),
    dwell: between(rng, 20, 300),
    hold: between(rng, 30, 150),
    offset: between(rng, -0.7, 0.7),
    latency: between(rng, lo, lo + rng.uniform(40, 250)),
    keyHold: between(rng, 20, 120),
    scroll: rng.chance(0.5)
      ? SCROLLS.fixed(rng.pick([100, 120, 53]), between(rng, 30, 150))
      : SCROLLS.smooth(rng.pick([10, 20, 40]), timerJitter(rng, 16)),
  }
}

function humanisedStyle(rng: Rng): BotStyle {
  const a = rng.uniform(100, 250)
  const b = rng.uniform(80, 180)
  const latency = rng.uniform(110, 260)
  const keyHold = rng.uniform(70, 120)
  const logNormalKeys = rng.chance(0.3)
  return {
    ...baseStyle(rng),
    move: {
      curve: rng.uniform(0.05, 0.3),
      profile: rng.chance(0.5) ? PROFILES.minJerk : PROFILES.gaussian,
      duration: (d, w) => (a + b * Math.log2(d / w + 1)) * rng.logNormal(1, 0.15),
      interval: () => Math.max(4, rng.normal(16.7, 2)),
      jitter: rng.uniform(0.2, 1.2),
      tremor: rng.chance(0.3) ? { amp: rng.uniform(0.3, 1.2), hz: rng.uniform(8, 12) } : undefined,
      overshoot: 0.5,
      coalesced: rng.chance(0.3) ? () => rng.int(1, 4) : undefined,
    },
    dwell: () => rng.logNormal(150, 0.5),
    hold: () => Math.max(30, rng.normal(100, 25)),
    offset: () => clamp(rng.normal(0, 0.35), -1, 1),
    latency: logNormalKeys ? () => rng.logNormal(latency, 0.4) : () => Math.max(20, rng.normal(latency, latency * 0.25)),
    keyHold: logNormalKeys ? () => rng.logNormal(keyHold, 0.25) : () => Math.max(20, rng.normal(keyHold, 20)),
    sequential: false,
    scroll: rng.chance(0.5) ? SCROLLS.momentum : SCROLLS.fixed(rng.pick([100, 120]), () => Math.max(8, rng.logNormal(60, 0.5))),
    think: () => rng.logNormal(600, 0.6),
    sc: rng.chance(0.15),
  }
}

const run = (rng: Rng, style: BotStyle) => runSession(rng, new BotActor(rng, style), style.actions, rng.int(3, 12))

/** a recorded human session played back, shifted in time and maybe in position; replayed through CDP (timer jitter, no coalescing) or posted verbatim */
export function replaySession(rng: Rng): { signals: Signal[]; source: Signal[] } {
  const source = humanSession(rng)
  const shift = rng.uniform(0, 5000)
  const dx = rng.chance(0.5) ? rng.int(-40, 40) : 0
  const dy = rng.chance(0.5) ? rng.int(-40, 40) : 0
  const verbatim = rng.chance(0.4)
  const headless = rng.chance(0.25)
  let prev = 0
  const signals = source.map((e) => {
    const out: Signal = { ...e, t: e.t + shift }
    if (e.x !== undefined && e.y !== undefined) {
      out.x = e.x + dx
      out.y = e.y + dy
    }
    if (verbatim) return out
    delete out.n
    out.t = Math.round(Math.max(prev, out.t + rng.uniform(0.1, 2)) * 10) / 10
    prev = out.t
    if (headless && (e.k === 'mm' || e.k === 'md' || e.k === 'mu' || e.k === 'c')) out.sc = 1
    return out
  })
  return { signals, source }
}

/** nothing, lifecycle events only, a lone click, a few moves or one scroll */
function emptySession(rng: Rng): Signal[] {
  const r = rng.next()
  const t = rng.uniform(10, 3000)
  if (r < 0.25) return []
  if (r < 0.5)
    return Array.from({ length: rng.int(1, 4) }, (_, i) => ({ t: t + i * rng.uniform(0, 500), k: rng.pick(['f', 'b', 'v', 'r'] as const) }))
  if (r < 0.7) return [{ t, k: 'c', x: rng.int(0, 1280), y: rng.int(0, 720), ...(rng.chance(0.5) ? { ox: 0, oy: 0 } : {}) }]
  if (r < 0.85) return Array.from({ length: rng.int(1, 4) }, (_, i) => ({ t: t + i * 16, k: 'mm', x: 100 + i * 10, y: 200 }))
  return [{ t, k: 's', dy: rng.pick([100, 500, 1000]) }]
}

export const BOT_FAMILIES = {
  /** straight lines at constant speed (Puppeteer `mouse.move` with steps, simple Selenium actions) */
  linear_constant: (rng: Rng) => {
    const style = baseStyle(rng)
    style.move = {
      curve: 0,
      profile: PROFILES.constant,
      duration: atSpeed(rng.uniform(0.3, 3)),
      interval: loopInterval(rng),
      jitter: rng.chance(0.4) ? rng.uniform(0.3, 1.5) : 0,
      overshoot: 0,
    }
    return run(rng, style)
  },
  /** Bézier curves walked at constant speed */
  bezier_constant: (rng: Rng) => run(rng, curvedBotStyle(rng, PROFILES.constant)),
  /** Bézier curves with easing: accelerating, or accelerating then decelerating */
  bezier_accelerating: (rng: Rng) =>
    run(rng, curvedBotStyle(rng, rng.pick([PROFILES.easeInQuad, PROFILES.easeInCubic, PROFILES.easeInOutCubic, PROFILES.easeInOutSine]))),
  /** "humanising" cursor libraries: Fitts-timed, minimum-jerk or Gaussian speed, overshoot, noise, some fake tremor, human-like keys */
  bezier_minjerk: (rng: Rng) => run(rng, humanisedStyle(rng)),
  /** clicks without moves (`element.click()` through CDP, or one hover move right before the press) */
  teleport: (rng: Rng) => {
    const style = baseStyle(rng)
    style.hover = rng.chance(0.4)
    style.offset = rng.chance(0.7) ? fixed(0) : between(rng, -0.5, 0.5)
    style.latency = timerJitter(rng, rng.pick([0, 5, 10, 20]))
    style.scroll = SCROLLS.scrollBy
    style.actions = { click: 0.5, type: 0.3, scroll: 0.2, wander: 0, idle: 0 }
    return run(rng, style)
  },
  replay: (rng: Rng) => replaySession(rng).signals,
  /** form fillers typing with one fixed delay and hold */
  typing_fixed: (rng: Rng) => {
    const style = baseStyle(rng)
    if (rng.chance(0.6))
      style.move = {
        curve: 0,
        profile: PROFILES.constant,
        duration: atSpeed(rng.uniform(0.5, 3)),
        interval: loopInterval(rng),
        jitter: 0,
        overshoot: 0,
      }
    const delay = rng.pick([30, 50, 75, 100, 120, 150, 200])
    style.latency = rng.chance(0.5) ? timerJitter(rng, delay) : fixed(delay)
    const hold = rng.pick([0.2, 10, 20, 30, 50])
    style.keyHold = rng.chance(0.5) ? timerJitter(rng, hold) : fixed(hold)
    style.actions = FORM_ACTIONS
    return run(rng, style)
  },
  /** typing with uniformly random delays and holds, cursor on curves */
  typing_uniform: (rng: Rng) => {
    const style = curvedBotStyle(rng, rng.chance(0.5) ? PROFILES.constant : PROFILES.minJerk)
    const lo = rng.uniform(30, 150)
    const holdLo = rng.uniform(10, 80)
    style.latency = between(rng, lo, lo + rng.uniform(40, 250))
    style.keyHold = between(rng, holdLo, holdLo + rng.uniform(20, 100))
    style.sequential = rng.chance(0.8)
    style.actions = FORM_ACTIONS
    return run(rng, style)
  },
  /** DevTools-protocol scripts dispatching events back to back: sub-2 ms gaps, headless screen = client */
  cdp_burst: (rng: Rng) => {
    const style = baseStyle(rng)
    const burst = () => (rng.chance(0.92) ? rng.uniform(0.02, 1.5) : rng.uniform(16, 300))
    style.move = {
      curve: rng.chance(0.5) ? 0 : rng.uniform(0.1, 0.4),
      profile: PROFILES.constant,
      duration: between(rng, 5, 40),
      interval: burst,
      jitter: 0,
      overshoot: 0,
    }
    style.dwell = between(rng, 0.05, 1.5)
    style.hold = between(rng, 0.05, 1.5)
    style.latency = between(rng, 0.05, 1.5)
    style.keyHold = between(rng, 0.05, 1)
    style.scroll = SCROLLS.fixed(100, between(rng, 0.1, 2))
    style.think = between(rng, 50, 2000)
    style.sc = rng.chance(0.9)
    return run(rng, style)
  },
  /** events made with `dispatchEvent` in page scripts: isTrusted false */
  untrusted: (rng: Rng) => {
    const style = curvedBotStyle(rng, rng.chance(0.5) ? PROFILES.constant : PROFILES.minJerk)
    style.untrusted = rng.chance(0.7) ? 1 : rng.uniform(0.4, 0.9)
    style.sc = false
    return run(rng, style)
  },
  /** mobile emulation: scripted taps and straight drags with a constant or flatly random contact */
  touch_scripted: (rng: Rng) => {
    const style = baseStyle(rng)
    const smart = rng.chance(0.3)
    const radius = rng.pick([1, 0.5, 25, 11.5])
    const pressure = rng.pick([1, 0.5])
    style.touch = {
      radius: smart ? () => radius + 5 + rng.normal(0, 0.3) : fixed(radius),
      pressure: smart ? between(rng, 0.4, 0.6) : fixed(pressure),
      profile: rng.chance(0.5) ? PROFILES.constant : PROFILES.easeInOutSine,
      interval: rng.chance(0.5) ? timerJitter(rng, 16) : fixed(10),
    }
    style.hold = between(rng, 0, 120)
    style.dwell = between(rng, 0, 5)
    style.unidentifiedKeys = rng.chance(0.5)
    style.scroll = SCROLLS.swipe
    style.actions = { click: 0.35, type: 0.15, scroll: 0.45, wander: 0.05, idle: 0 }
    return run(rng, style)
  },
  empty: emptySession,
} satisfies Record<string, (rng: Rng) => Signal[]>

export type BotFamily = keyof typeof BOT_FAMILIES
export const BOT_FAMILY_NAMES = Object.keys(BOT_FAMILIES) as BotFamily[]
