// Pieces shared by the human and bot generators: the event recorder, the page
// a session acts on, and the plan of actions a session runs through.
import type { KeyClass, Signal } from '../signals'
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

  /** events in time order (stable, so a click stays behind its mouseup), timestamps on the clock's grid */
  finish(): Signal[] {
    const perMs = Math.round(1 / this.resolutionMs)
    return this.events
      .sort((a, b) => a.t - b.t)
      .map((e) => ({ ...e, t: Math.round(e.t * perMs) / perMs }))
  }
}

export const quantise = (v: number, dpr: number) => Math.round(v * dpr) / dpr

export function randomTarget(rng: Rng, viewport: { w: number; h: number }, kind: 'button' | 'field' = 'button'): Target {
  const w = kind === 'field' ? rng.uniform(140, 420) : rng.uniform(24, 220)
  const h = kind === 'field' ? rng.uniform(28, 44) : rng.uniform(20, 56)
  return { x: rng.uniform(w / 2 + 8, viewport.w - w / 2 - 8), y: rng.uniform(h / 2 + 8, viewport.h - h / 2 - 8), w, h }
}

/**
 * Momentum scrolling after a touch fling, as the browser produces it for
 * human and scripted flings alike: one scroll per frame, velocity decaying.
 * @param v finger velocity at lift, px per frame (content moves the other way)
 * @returns the time of the last scroll
 */
export function flingMomentum(rec: Recorder, t: number, v: number, decay: number, dpr: number, nextFrame: (t: number) => number): number {
  for (let i = 0; Math.abs(v) >= 0.5 && i < 300; i++) {
    t = nextFrame(t + 1)
    v *= decay
    rec.push({ t, k: 's', dy: quantise(-v, dpr) })
  }
  return t
}

/** what a person types into a field, as key classes: words, digits, or an e-mail-like string */
export function keyTokens(rng: Rng, length: number): KeyToken[] {
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
