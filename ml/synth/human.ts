// Synthetic human sessions. Pointer movement follows the sigma-lognormal
// model of the Kinematic Theory (Plamondon): an aimed movement is a primary
// lognormal submovement sized by Fitts' law plus corrective submovements that
// overlap its tail, with 8–12 Hz physiological tremor on top. The mouse is
// polled at its report rate, quantised to device pixels and delivered once
// per display frame with the coalesced sample count `n`, as browsers do.
// Keys use log-normal hold and latency (rollover emerges when a latency is
// shorter than the previous hold); scrolls come from wheels or smooth
// trackpads; touch flings scroll without wheel events.
import type { KeyClass, Signal } from '../../src/scoring/signals'
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

type Lognormal = { t0: number; mu: number; sigma: number; d: number; thetaS: number; sweep: number }

/** share of the submovement completed at time t (ms) */
function progress(c: Lognormal, t: number): number {
  const dt = (t - c.t0) / 1000
  return dt <= 0 ? 0 : 0.5 * (1 + erf((Math.log(dt) - c.mu) / (c.sigma * Math.SQRT2)))
}

/** displacement along a circular arc whose direction sweeps linearly with progress */
function displacement(c: Lognormal, f: number): Point {
  if (Math.abs(c.sweep) < 1e-6) return { x: c.d * f * Math.cos(c.thetaS), y: c.d * f * Math.sin(c.thetaS) }
  const r = c.d / c.sweep
  return {
    x: r * (Math.sin(c.thetaS + c.sweep * f) - Math.sin(c.thetaS)),
    y: r * (Math.cos(c.thetaS) - Math.cos(c.thetaS + c.sweep * f)),
  }
}

/** a submovement whose chord has length `chord` in direction `theta` */
function submovement(chord: number, theta: number, sweep: number, t0: number, mu: number, sigma: number): Lognormal {
  const d = Math.abs(sweep) < 1e-6 ? chord : (chord * sweep) / 2 / Math.sin(sweep / 2)
  return { t0, mu, sigma, d, thetaS: theta - sweep / 2, sweep }
}

const endOf = (c: Lognormal) => c.t0 + Math.exp(c.mu + 3 * c.sigma) * 1000

type Reach = { from: Point; comps: Lognormal[]; start: number; end: number; tremor: number[] }

type DesktopEnv = {
  dpr: number
  pollMs: number
  pollPhase: number
  frameMs: number
  framePhase: number
  sc: boolean
  fittsA: number
  fittsB: number
  tremorAmp: number
  tremorHz: number
  clickHold: number
  typing: TypingProfile
  scroll: 'wheel' | 'wheel_accel' | 'trackpad'
  wheelStep: number
  /** Safari has no getCoalescedEvents(): the SDK then sends no `n` */
  coalescing: boolean
}

type TypingProfile = { latency: number; latencySigma: number; hold: number; holdSigma: number; errors: number; unidentified: boolean }

/** Fitts' law movement time, a primary submovement that undershoots a little, corrections toward the aim */
function planReach(rng: Rng, env: DesktopEnv, from: Point, aim: Point, width: number, start: number): Reach {
  const length = Math.hypot(aim.x - from.x, aim.y - from.y)
  const theta = Math.atan2(aim.y - from.y, aim.x - from.x)
  const mt = (env.fittsA + env.fittsB * Math.log2(length / width + 1)) * rng.logNormal(1, 0.15)
  const sigma = rng.uniform(0.18, 0.38)
  const mu = Math.log(0.8 * mt) - 2 * sigma
  const t0 = start - Math.exp(mu - 3 * sigma) * 1000
  const primary = submovement(length * rng.normal(0.95, 0.04), theta + rng.normal(0, 0.04), rng.normal(0, 0.35), t0, mu, sigma)
  const comps = [primary]
  let end = add(from, displacement(primary, 1))
  let prev = primary
  for (let j = 0; j < 3; j++) {
    const err = Math.hypot(aim.x - end.x, aim.y - end.y)
    if (err < Math.max(1, width * 0.05) || (j > 0 && err < width * 0.2 && rng.chance(0.6))) break
    const s = rng.uniform(0.2, 0.4)
    const c = submovement(
      err * rng.normal(1, 0.06),
      Math.atan2(aim.y - end.y, aim.x - end.x) + rng.normal(0, 0.08),
      rng.normal(0, 0.5),
      prev.t0 + Math.exp(prev.mu) * 1000 * rng.uniform(0.85, 1.3),
      Math.log(rng.uniform(0.1, 0.22)),
      s
    )
    comps.push(c)
    end = add(end, displacement(c, 1))
    prev = c
  }
  const amp = env.tremorAmp * rng.uniform(0.6, 1.4)
  const tremor = [
    amp,
    amp * rng.uniform(0.5, 1),
    env.tremorHz + rng.normal(0, 0.5),
    env.tremorHz + rng.normal(0, 0.5),
    rng.uniform(0, 7),
    rng.uniform(0, 7),
  ]
  return { from, comps, start, end: Math.max(...comps.map(endOf)), tremor }
}

const add = (a: Point, b: Point): Point => ({ x: a.x + b.x, y: a.y + b.y })

function reachAt(r: Reach, t: number): Point {
  let p = r.from
  for (const c of r.comps) p = add(p, displacement(c, progress(c, t)))
  const [ax, ay, fx, fy, px, py] = r.tremor
  const env = Math.sin(Math.PI * Math.min(1, Math.max(0, (t - r.start) / (r.end - r.start))))
  const s = t / 1000
  return { x: p.x + env * ax * Math.sin(2 * Math.PI * fx * s + px), y: p.y + env * ay * Math.sin(2 * Math.PI * fy * s + py) }
}

function typingProfile(rng: Rng, mobile: boolean): TypingProfile {
  return mobile
    ? {
        latency: rng.uniform(200, 420),
        latencySigma: rng.uniform(0.35, 0.55),
        hold: rng.uniform(55, 100),
        holdSigma: rng.uniform(0.15, 0.3),
        errors: rng.uniform(0, 0.06),
        unidentified: rng.chance(0.5),
      }
    : {
        latency: rng.uniform(110, 320),
        latencySigma: rng.uniform(0.3, 0.55),
        hold: rng.uniform(70, 130),
        holdSigma: rng.uniform(0.15, 0.35),
        errors: rng.uniform(0, 0.05),
        unidentified: false,
      }
}

/** log-normal latencies (longer around spaces, occasional thinking pauses), log-normal holds, typos fixed with backspace */
function typeKeys(rng: Rng, rec: Recorder, p: TypingProfile, start: number, tokens: KeyToken[]): number {
  let t = start
  const key = (kc: KeyClass, down: number, hold: number) => {
    const c = p.unidentified ? 'other' : kc
    rec.push({ t: down, k: 'kd', kc: c })
    rec.push({ t: down + hold, k: 'ku', kc: c })
  }
  const hold = (kc: KeyClass) => rng.logNormal(p.hold * (kc === 'space' ? 1.1 : 1), p.holdSigma)
  for (const tok of tokens) {
    let latency = rng.logNormal(p.latency * (tok.kc === 'space' ? 1.2 : 1), p.latencySigma)
    if (rng.chance(0.04)) latency += rng.logNormal(900, 0.5)
    t += Math.max(25, latency)
    if (tok.shift) {
      const shiftLead = rng.logNormal(110, 0.3)
      const h = hold(tok.kc)
      key('mod', t, shiftLead + h + rng.logNormal(40, 0.5))
      t += shiftLead
      key(tok.kc, t, h)
    } else key(tok.kc, t, hold(tok.kc))
    if (rng.chance(p.errors)) {
      t += rng.logNormal(p.latency * 1.8, 0.35)
      key('back', t, hold('back'))
    }
  }
  if (rng.chance(0.3)) {
    t += rng.logNormal(p.latency * 1.5, 0.4)
    key(rng.chance(0.6) ? 'enter' : 'nav', t, hold('enter'))
  }
  return t + p.hold * 2
}

function lifecycle(rng: Rng, rec: Recorder, t: number, away: number): void {
  rec.push({ t, k: 'b' })
  rec.push({ t: t + rng.uniform(0, 3), k: 'v' })
  rec.push({ t: t + away, k: 'v' })
  rec.push({ t: t + away + rng.uniform(0, 5), k: 'f' })
}

class DesktopHuman implements Actor {
  t: number
  viewport: { w: number; h: number }
  private readonly rec: Recorder
  private readonly env: DesktopEnv
  private pos: Point

  constructor(private readonly rng: Rng) {
    const trackpad = rng.chance(0.3)
    const frameHz = rng.pick([60, 60, 60, 60, 75, 120, 144])
    const browser = rng.pick(['chrome', 'chrome', 'chrome', 'chrome', 'chrome', 'chrome', 'firefox', 'safari', 'safari'] as const)
    this.env = {
      dpr: rng.pick([1, 1, 1.25, 1.5, 2, 2]),
      pollMs: 1000 / (trackpad ? rng.uniform(80, 130) : rng.pick([125, 125, 250, 500, 1000])),
      pollPhase: rng.uniform(0, 1),
      frameMs: 1000 / frameHz,
      framePhase: rng.uniform(0, 16),
      sc: rng.chance(0.02),
      fittsA: rng.uniform(0.08, 0.2),
      fittsB: rng.uniform(0.08, 0.18),
      tremorAmp: rng.uniform(0.3, 1.6),
      tremorHz: rng.uniform(8, 12),
      clickHold: rng.uniform(70, 140),
      typing: typingProfile(rng, false),
      scroll: trackpad ? 'trackpad' : rng.pick(['wheel', 'wheel', 'wheel', 'wheel_accel'] as const),
      wheelStep: rng.pick([100, 100, 100, 120, 53, 57, 48, 40]),
      coalescing: browser !== 'safari',
    }
    this.rec = new Recorder(browser === 'chrome' ? rng.pick([0.1, 0.1, 0.005]) : 1)
    this.viewport = { w: rng.uniform(1024, 2560), h: rng.uniform(600, 1400) }
    this.pos = { x: quantise(rng.uniform(0, this.viewport.w), this.env.dpr), y: quantise(rng.uniform(0, this.viewport.h), this.env.dpr) }
    this.t = rng.uniform(100, 1500)
  }

  private mouse(k: Signal['k'], t: number, extra: Partial<Signal> = {}): void {
    this.rec.push({ t, k, x: this.pos.x, y: this.pos.y, ...extra, ...(this.env.sc ? { sc: 1 } : {}) })
  }

  private move(t: number, coalesced: number): void {
    this.mouse('mm', t, this.env.coalescing ? { n: coalesced } : {})
  }

  /** polls the continuous trajectory; one `mm` per display frame carrying the number of changed polls */
  private reach(aim: Point, width: number): void {
    const plan = planReach(this.rng, this.env, this.pos, aim, width, this.t)
    const { pollMs, pollPhase, frameMs, framePhase, dpr } = this.env
    let frameEnd = framePhase + Math.ceil((plan.start - framePhase) / frameMs) * frameMs
    let changed = 0
    let last = 0
    for (let poll = pollPhase + Math.ceil((plan.start - pollPhase) / pollMs) * pollMs; poll <= plan.end; poll += pollMs) {
      if (poll > frameEnd) {
        if (changed) this.move(last, changed)
        changed = 0
        frameEnd += Math.ceil((poll - frameEnd) / frameMs) * frameMs
      }
      const p = reachAt(plan, poll)
      const q = { x: quantise(p.x, dpr), y: quantise(p.y, dpr) }
      if (q.x !== this.pos.x || q.y !== this.pos.y) {
        this.pos = q
        changed++
        last = poll
      }
    }
    if (changed) this.move(last, changed)
    this.t = plan.end
  }

  click(target: Target): void {
    const { rng } = this
    const aim = {
      x: target.x + Math.max(-0.45, Math.min(0.45, rng.normal(0, 0.2))) * target.w,
      y: target.y + Math.max(-0.45, Math.min(0.45, rng.normal(0, 0.2))) * target.h,
    }
    this.reach(aim, Math.min(target.w, target.h * 2))
    const presses = rng.chance(0.04) ? 2 : 1
    for (let i = 0; i < presses; i++) {
      this.t += i === 0 ? rng.logNormal(110, 0.55) : rng.logNormal(90, 0.3)
      this.mouse('md', this.t)
      this.t += rng.logNormal(this.env.clickHold, 0.3)
      this.mouse('mu', this.t)
      this.mouse('c', this.t, targetOffset(this.pos, target))
    }
    if (rng.chance(0.02)) this.rec.push({ t: this.t + rng.uniform(5, 400), k: 'c', x: 0, y: 0, tr: false })
  }

  type(tokens: KeyToken[]): void {
    this.t = typeKeys(this.rng, this.rec, this.env.typing, this.t, tokens)
  }

  scroll(): void {
    const { rng, env } = this
    const sign = rng.chance(0.8) ? 1 : -1
    if (env.scroll === 'trackpad') {
      let v = rng.uniform(8, 60)
      const decay = rng.uniform(0.88, 0.96)
      for (let i = 0; Math.abs(v) >= 0.5 && i < 200; i++) {
        this.t += env.frameMs + rng.normal(0, 0.4)
        const dy = i < 5 ? v * (0.4 + 0.15 * i) * rng.uniform(0.8, 1.2) : v
        this.rec.push({ t: this.t, k: 's', dy: sign * dy })
        if (i >= 5) v *= decay * rng.uniform(0.98, 1.02)
      }
      return
    }
    const notches = rng.int(1, 12)
    for (let i = 0; i < notches; i++) {
      const gap = Math.max(8, rng.logNormal(55, 0.6))
      this.t += gap
      const dy =
        env.scroll === 'wheel_accel' ? Math.max(1, Math.round(240 / gap)) * 4 : env.wheelStep * (gap < 20 && rng.chance(0.5) ? 2 : 1)
      this.rec.push({ t: this.t, k: 's', dy: sign * dy })
    }
  }

  wander(): void {
    const { rng, viewport } = this
    this.reach({ x: rng.uniform(0, viewport.w), y: rng.uniform(0, viewport.h) }, rng.uniform(60, 300))
  }

  idle(): void {
    const away = this.rng.logNormal(2500, 0.8)
    if (this.rng.chance(0.35)) lifecycle(this.rng, this.rec, this.t, away)
    else if (this.rng.chance(0.05)) this.rec.push({ t: this.t, k: 'r' })
    this.t += away
  }

  think(): void {
    this.t += this.rng.logNormal(450, 0.6)
  }

  finish(): Signal[] {
    return this.rec.finish()
  }
}

type MobileEnv = {
  dpr: number
  frameMs: number
  framePhase: number
  radius: number
  radiusJitter: number
  pressure: 'force' | 'constant' | 'none'
  typing: TypingProfile
}

class MobileHuman implements Actor {
  t: number
  viewport: { w: number; h: number }
  private readonly rec: Recorder
  private readonly env: MobileEnv

  constructor(private readonly rng: Rng) {
    const constantContact = rng.chance(0.25)
    this.env = {
      dpr: rng.pick([2, 2.625, 3, 3, 3.5]),
      frameMs: 1000 / rng.pick([60, 60, 60, 90, 120]),
      framePhase: rng.uniform(0, 16),
      radius: rng.uniform(6, 22),
      radiusJitter: constantContact ? 0 : rng.uniform(0.2, 1.5),
      pressure: constantContact ? 'constant' : rng.pick(['force', 'constant', 'constant', 'none'] as const),
      typing: typingProfile(rng, true),
    }
    this.rec = new Recorder(rng.pick([0.1, 1, 1]))
    this.viewport = { w: rng.uniform(360, 430), h: rng.uniform(640, 932) }
    this.t = rng.uniform(100, 1500)
  }

  private nextFrame(t: number): number {
    const { frameMs, framePhase } = this.env
    return framePhase + Math.ceil((t - framePhase) / frameMs) * frameMs + this.rng.normal(0, 0.3)
  }

  private touch(k: 'ts' | 'tm' | 'te', t: number, p: Point, base: { r: number; p: number }): void {
    const { env, rng } = this
    const contact: Partial<Signal> = { r: base.r + rng.normal(0, env.radiusJitter) }
    if (env.pressure === 'force') contact.p = Math.max(0, Math.min(1, base.p + rng.normal(0, 0.04)))
    if (env.pressure === 'constant') contact.p = 1
    this.rec.push({ t, k, x: quantise(p.x, env.dpr), y: quantise(p.y, env.dpr), ...contact })
  }

  private contact() {
    return { r: this.env.radius + this.rng.normal(0, this.env.radiusJitter * 2), p: this.rng.uniform(0.2, 0.7) }
  }

  click(target: Target): void {
    const { rng } = this
    const aim = { x: target.x + rng.normal(0, target.w / 5), y: target.y + rng.normal(0, target.h / 5) }
    const base = this.contact()
    this.t = this.nextFrame(this.t)
    this.touch('ts', this.t, aim, base)
    const hold = rng.logNormal(85, 0.35)
    const end = this.t + hold
    for (let i = rng.int(0, 2); i > 0; i--)
      this.touch('tm', this.t + (hold * (3 - i)) / 3, { x: aim.x + rng.normal(0, 1), y: aim.y + rng.normal(0, 1) }, base)
    this.t = end
    this.touch('te', this.t, aim, base)
    this.t += rng.uniform(1, 12)
    this.rec.push({ t: this.t, k: 'c', x: quantise(aim.x, this.env.dpr), y: quantise(aim.y, this.env.dpr), ...targetOffset(aim, target) })
  }

  type(tokens: KeyToken[]): void {
    this.t = typeKeys(this.rng, this.rec, this.env.typing, this.t, tokens)
  }

  /** a finger fling: a lognormal stroke lifted before it fully stops (touch scrolling fires no wheel events) */
  private swipe(length: number): void {
    const { rng, viewport } = this
    const from = { x: rng.uniform(0.2, 0.8) * viewport.w, y: rng.uniform(0.45, 0.85) * viewport.h }
    const up = rng.chance(0.8)
    const sigma = rng.uniform(0.2, 0.4)
    const mu = Math.log(0.8 * rng.uniform(0.12, 0.38)) - 2 * sigma
    const start = this.nextFrame(this.t)
    const c = submovement(
      length,
      (up ? -Math.PI / 2 : Math.PI / 2) + rng.normal(0, 0.15),
      rng.normal(0, 0.3),
      start - Math.exp(mu - 3 * sigma) * 1000,
      mu,
      sigma
    )
    const lift = rng.uniform(0.7, 0.99)
    const base = this.contact()
    this.touch('ts', start, from, base)
    let t = start
    for (let i = 0; i < 200; i++) {
      t = this.nextFrame(t + 1)
      const f = progress(c, t)
      this.touch(f >= lift ? 'te' : 'tm', t, add(from, displacement(c, f)), base)
      if (f >= lift) break
    }
    this.t = t
  }

  scroll(): void {
    this.swipe(this.rng.uniform(80, 500))
  }

  wander(): void {
    this.swipe(this.rng.uniform(30, 120))
  }

  idle(): void {
    const away = this.rng.logNormal(3000, 0.8)
    if (this.rng.chance(0.35)) lifecycle(this.rng, this.rec, this.t, away)
    this.t += away
  }

  think(): void {
    this.t += this.rng.logNormal(700, 0.7)
  }

  finish(): Signal[] {
    return this.rec.finish()
  }
}

const DESKTOP_ACTIONS: ActionWeights = { click: 0.4, type: 0.15, scroll: 0.2, wander: 0.2, idle: 0.05 }
const MOBILE_ACTIONS: ActionWeights = { click: 0.3, type: 0.15, scroll: 0.45, wander: 0.05, idle: 0.05 }

/** one human session: desktop (70%) or mobile touch (30%) */
export function humanSession(rng: Rng): Signal[] {
  return rng.chance(0.7)
    ? runSession(rng, new DesktopHuman(rng), DESKTOP_ACTIONS, rng.int(3, 15))
    : runSession(rng, new MobileHuman(rng), MOBILE_ACTIONS, rng.int(3, 15))
}
