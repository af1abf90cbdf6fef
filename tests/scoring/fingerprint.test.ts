import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { touchStrokes } from '../../src/scoring/fingerprint'
import { trajectoryFingerprint } from '../../src/scoring/service'
import type { Signal } from '../../src/scoring/signals'
import { replaySession } from '../../ml/synth/bots'
import { createRng, deriveSeed } from '../../ml/synth/prng'
import { sessionFor } from '../../ml/training/pipeline'

const SEED = 5151
const TOUCH = /^tt1:[0-9a-f]{16}$/

const touchOnly = (s: readonly Signal[]) => s.some((e) => e.k === 'ts') && !s.some((e) => e.k === 'mm')

/** the first `count` synthetic touch-only humans of the seed, with their fingerprints (null ones included) */
function touchHumans(count: number): { signals: Signal[]; print: string | null }[] {
  const out: { signals: Signal[]; print: string | null }[] = []
  for (let i = 0; out.length < count; i++) {
    const signals = sessionFor(SEED, 'human', i)
    if (touchOnly(signals)) out.push({ signals, print: trajectoryFingerprint(signals) })
  }
  return out
}

const shifted = (signals: readonly Signal[], dt: number, dx: number, dy: number): Signal[] =>
  signals.map((s) => ({ ...s, t: s.t + dt, ...(s.x !== undefined && s.y !== undefined ? { x: s.x + dx, y: s.y + dy } : {}) }))

/** a swipe of `samples` positions from (x, y), moving up with a bell-shaped speed and a little sideways drift */
function swipe(t0: number, x: number, y: number, samples: number, seed: number): Signal[] {
  return Array.from({ length: samples }, (_, i) => {
    const f = i / (samples - 1)
    const k = i === 0 ? 'ts' : i === samples - 1 ? 'te' : 'tm'
    return {
      t: t0 + i * 16.7,
      k,
      x: Math.round((x + 6 * Math.sin(f * 3 + seed)) * 10) / 10,
      y: Math.round((y - 300 * (f * f * (3 - 2 * f)) - seed * f) * 10) / 10,
      r: 20,
    }
  })
}

describe('touch trajectory fingerprint', () => {
  const humans = touchHumans(300)
  const printed = humans.filter((h) => h.print !== null)

  it('most synthetic touch-only humans get one, prefixed tt1:', () => {
    expect(printed.length).toBeGreaterThan(humans.length * 0.7)
    // the ones without: taps and short swipes only
    for (const h of humans.filter((x) => x.print === null))
      expect(touchStrokes(h.signals).reduce((n, s) => n + s.x.length - 1, 0)).toBeLessThan(40)
    for (const h of printed) expect(h.print).toMatch(TOUCH)
  })

  it('two different synthetic touch humans never share one', () => {
    expect(new Set(printed.map((h) => h.print)).size).toBe(printed.length)
  })

  it('survives a constant time shift and a constant position offset', () => {
    const { signals, print } = printed[0]!
    fc.assert(
      fc.property(
        fc.integer({ min: -5_000, max: 10_000_000 }),
        fc.integer({ min: -20_000, max: 20_000 }),
        fc.integer({ min: -20_000, max: 20_000 }),
        (dt, dx10, dy10) => {
          // offsets on the SDK's 0.1 px grid, as a replay that moved the page would produce
          expect(trajectoryFingerprint(shifted(signals, dt, dx10 / 10, dy10 / 10))).toBe(print)
        }
      ),
      { numRuns: 100 }
    )
  })

  it('a synthetic replay of a touch-only session matches its source, verbatim or re-timed through CDP', () => {
    let checked = 0
    for (let i = 0; checked < 40; i++) {
      const { signals, source } = replaySession(createRng(deriveSeed(SEED, 'replay', i)))
      if (!touchOnly(source) || trajectoryFingerprint(source) === null) continue
      expect(trajectoryFingerprint(signals)).toBe(trajectoryFingerprint(source))
      checked++
    }
  })

  it('ignores times: re-timed events (jitter, equal or reordered timestamps) keep the strokes', () => {
    const signals = [...swipe(0, 200, 700, 20, 0), ...swipe(900, 150, 650, 18, 1)]
    const print = trajectoryFingerprint(signals)
    expect(print).toMatch(TOUCH)
    expect(trajectoryFingerprint(signals.map((s, i) => ({ ...s, t: 5_000 + Math.floor(i / 3) })))).toBe(print)
    expect(touchStrokes(signals).map((s) => s.x.length)).toEqual([20, 18])
  })

  it('tells apart swipes that differ by one pixel in one sample', () => {
    const signals = [...swipe(0, 200, 700, 20, 0), ...swipe(900, 150, 650, 18, 1)]
    const nudged = signals.map((s, i) => (i === 10 ? { ...s, y: s.y! + 1 } : s))
    expect(trajectoryFingerprint(nudged)).not.toBe(trajectoryFingerprint(signals))
  })

  it('is null for too little movement', () => {
    expect(
      trajectoryFingerprint([
        { t: 0, k: 'ts', x: 10, y: 10 },
        { t: 80, k: 'te', x: 10, y: 10 },
      ])
    ).toBeNull()
    // taps only: a few samples each, however many taps
    const taps: Signal[] = Array.from({ length: 40 }, (_, i) => [
      { t: i * 500, k: 'ts' as const, x: 100 + i, y: 300 },
      { t: i * 500 + 40, k: 'tm' as const, x: 101 + i, y: 301 },
      { t: i * 500 + 80, k: 'te' as const, x: 101 + i, y: 300 },
    ]).flat()
    expect(trajectoryFingerprint(taps)).toBeNull()
    // one short swipe
    expect(trajectoryFingerprint(swipe(0, 200, 700, 12, 0))).toBeNull()
    // a resting finger: many samples, all in one place
    expect(
      trajectoryFingerprint([
        { t: 0, k: 'ts', x: 50, y: 50 },
        ...Array.from({ length: 100 }, (_, i) => ({ t: 10 + i * 8, k: 'tm' as const, x: 50, y: 50 })),
      ])
    ).toBeNull()
    // a slow creep of the same 1 px step: 80 moves, but only the first says anything
    expect(
      trajectoryFingerprint([
        { t: 0, k: 'ts', x: 50, y: 50 },
        ...Array.from({ length: 80 }, (_, i) => ({ t: 10 + i * 8, k: 'tm' as const, x: 51 + i, y: 50 })),
      ])
    ).toBeNull()
    // touches without positions
    expect(
      trajectoryFingerprint(Array.from({ length: 100 }, (_, i) => ({ t: i * 16, k: i % 20 === 0 ? ('ts' as const) : ('tm' as const) })))
    ).toBeNull()
  })

  it('a session with both a pointer and a touch trajectory uses the pointer one', () => {
    const touch = [...swipe(0, 200, 700, 20, 0), ...swipe(900, 150, 650, 18, 1)]
    const mouse: Signal[] = Array.from({ length: 60 }, (_, i) => ({
      t: 5_000 + i * 16,
      k: 'mm',
      x: 100 + i * 3 + (i % 4),
      y: 200 + Math.round(20 * Math.sin(i / 6)),
    }))
    const pointerPrint = trajectoryFingerprint(mouse)
    expect(pointerPrint).toMatch(/^tf1:[0-9a-f]{16}$/)
    expect(trajectoryFingerprint([...touch, ...mouse])).toBe(pointerPrint)
    // too few mouse moves for a pointer fingerprint: the touch one
    expect(trajectoryFingerprint([...touch, ...mouse.slice(0, 10)])).toBe(trajectoryFingerprint(touch))
  })
})
