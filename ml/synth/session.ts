// Pieces shared by the human and bot generators: the event recorder, the page
// a session acts on, and the plan of actions a session runs through.
import type { KeyClass, Signal } from '../../src/scoring/signals'
import type { Rng } from './prng'

export type Point = { x: number; y: number }
/** a clickable element: centre and size in CSS px */
export type Target = { x: number; y: number; w: number; h: number }
export type KeyToken = { kc: KeyClass; shift?: boolean }

export class Recorder {
  private readonly events: Signal[] = []

  /** @param resolutionMs the clock resolution of the browser (0.1 ms Chrome, 1 ms Firefox/Safari, …) */
  constructor(private readonly resolutionMs: number) {}

  push(event: Signal): void {
    this.events.push(event)
  }

  /**
   * Events in time order (stable, so a click stays behind its mouseup),
   * timestamps on the clock's grid, values rounded as the browser SDK sends
   * them (src/sdk/events.ts): positions, deltas, radius to 0.1 px; click
   * offsets and force to 0.001.
   */
  finish(): Signal[] {
    const perMs = Math.round(1 / this.resolutionMs)
    const round = (v: number, per: number) => Math.round(v * per) / per
    return this.events
      .sort((a, b) => a.t - b.t)
      .map((e) => {
        const out: Signal = { ...e, t: round(e.t, perMs) }
        for (const k of ['x', 'y', 'dy', 'r'] as const) if (e[k] !== undefined) out[k] = round(e[k], 10)
        for (const k of ['ox', 'oy', 'p'] as const) if (e[k] !== undefined) out[k] = round(e[k], 1000)
        return out
      })
  }
}

export const quantise = (v: number, dpr: number) => Math.round(v * dpr) / dpr

/** where a point sits inside its target, −1…1 from the centre on each axis (the `ox`, `oy` of a click) */
export function targetOffset(p: Point, target: Target): { ox: number; oy: number } {
  const axis = (d: number, size: number) => Math.max(-1, Math.min(1, d / (size / 2)))
  return { ox: axis(p.x - target.x, target.w), oy: axis(p.y - target.y, target.h) }
}

/** Abramowitz–Stegun 7.1.26, |error| < 1.5e-7 */
export function erf(x: number): number {
  const s = Math.sign(x)
  const a = Math.abs(x)
  const k = 1 / (1 + 0.3275911 * a)
  const poly = ((((1.061405429 * k - 1.453152027) * k + 1.421413741) * k - 0.284496736) * k + 0.254829592) * k
  return s * (1 - poly * Math.exp(-a * a))
}

function randomTarget(rng: Rng, viewport: { w: number; h: number }, kind: 'button' | 'field' = 'button'): Target {
  const w = kind === 'field' ? rng.uniform(140, 420) : rng.uniform(24, 220)
  const h = kind === 'field' ? rng.uniform(28, 44) : rng.uniform(20, 56)
  return { x: rng.uniform(w / 2 + 8, viewport.w - w / 2 - 8), y: rng.uniform(h / 2 + 8, viewport.h - h / 2 - 8), w, h }
}

/** what a person types into a field, as key classes: words, digits, or an e-mail-like string */
function keyTokens(rng: Rng, length: number): KeyToken[] {
  const kind = rng.pick(['words', 'words', 'digits', 'email'] as const)
  const out: KeyToken[] = []
  let word = 0
  while (out.length < length) {
    if (kind === 'digits') {
      out.push({ kc: 'digit' })
      continue
    }
    const wordEnd = kind === 'words' && word > rng.int(2, 9)
    if (wordEnd) {
      out.push({ kc: 'space' })
      word = 0
      continue
    }
    const capital = word === 0 && kind === 'words' && rng.chance(0.15)
    out.push({ kc: kind === 'email' && rng.chance(0.1) ? 'digit' : 'char', shift: capital })
    word++
  }
  return out
}

/** an actor performs actions on a page; the runner decides the order */
export interface Actor {
  /** session clock, ms */
  t: number
  viewport: { w: number; h: number }
  click(target: Target): void
  type(tokens: KeyToken[]): void
  scroll(): void
  wander(): void
  idle(): void
  /** the pause between two actions */
  think(): void
  finish(): Signal[]
}

export type ActionWeights = { click: number; type: number; scroll: number; wander: number; idle: number }

export function runSession(rng: Rng, actor: Actor, weights: ActionWeights, actions: number): Signal[] {
  const names = Object.keys(weights) as (keyof ActionWeights)[]
  const total = names.reduce((s, k) => s + weights[k], 0)
  for (let i = 0; i < actions; i++) {
    let r = rng.next() * total
    const action = names.find((k) => (r -= weights[k]) < 0) ?? 'idle'
    if (action === 'click') actor.click(randomTarget(rng, actor.viewport))
    if (action === 'type') {
      actor.click(randomTarget(rng, actor.viewport, 'field'))
      actor.think()
      actor.type(keyTokens(rng, rng.int(4, 40)))
    }
    if (action === 'scroll') actor.scroll()
    if (action === 'wander') actor.wander()
    if (action === 'idle') actor.idle()
    actor.think()
  }
  return actor.finish()
}
