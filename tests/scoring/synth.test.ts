import { describe, expect, it } from 'bun:test'
import { KEY_CLASSES, SIGNAL_KINDS } from '../../src/scoring/signals'
import { BOT_FAMILY_NAMES, replaySession } from '../../ml/synth/bots'
import { createRng, deriveSeed } from '../../ml/synth/prng'
import { sessionFor } from '../../ml/training/pipeline'

const families = ['human', ...BOT_FAMILY_NAMES] as const

describe('synthetic generator', () => {
  it('mulberry32 is deterministic and uniform enough', () => {
    const a = createRng(42)
    const b = createRng(42)
    const xs = Array.from({ length: 10_000 }, () => a.next())
    expect(xs.slice(0, 100)).toEqual(Array.from({ length: 100 }, () => b.next()))
    const mean = xs.reduce((s, v) => s + v, 0) / xs.length
    expect(mean).toBeGreaterThan(0.49)
    expect(mean).toBeLessThan(0.51)
    expect(deriveSeed(1, 'human', 0)).not.toBe(deriveSeed(1, 'human', 1))
  })

  it.each(families)('%s: the same seed gives the same session, another seed another', (family) => {
    const one = sessionFor(7, family, 3)
    expect(sessionFor(7, family, 3)).toEqual(one)
    if (family !== 'empty') expect(sessionFor(8, family, 3)).not.toEqual(one)
  })

  it.each(families)('%s: sessions follow the signal contract', (family) => {
    for (let i = 0; i < 15; i++) {
      const signals = sessionFor(11, family, i)
      expect(signals.length).toBeLessThanOrEqual(10_000)
      signals.forEach((s, j) => {
        expect(SIGNAL_KINDS).toContain(s.k)
        expect(Number.isFinite(s.t)).toBe(true)
        if (j > 0) expect(s.t).toBeGreaterThanOrEqual(signals[j - 1].t)
        if (s.kc !== undefined) expect(KEY_CLASSES).toContain(s.kc)
        for (const v of [s.x, s.y, s.dy, s.ox, s.oy, s.p, s.r, s.n]) if (v !== undefined) expect(Number.isFinite(v)).toBe(true)
      })
    }
  })

  it('humans: coalesced samples behind moves, touch radius, untrusted events only as page-made clicks', () => {
    const humans = Array.from({ length: 40 }, (_, i) => sessionFor(5, 'human', i)).flat()
    expect(humans.some((s) => s.k === 'mm' && (s.n ?? 1) > 1)).toBe(true)
    expect(humans.some((s) => s.k === 'tm' && s.r !== undefined)).toBe(true)
    expect(humans.every((s) => s.tr !== false || s.k === 'c')).toBe(true)
  })

  it('a replay is its source shifted in time (and maybe position)', () => {
    const { signals, source } = replaySession(createRng(99))
    expect(signals).toHaveLength(source.length)
    const shift = signals[0].t - source[0].t
    expect(shift).toBeGreaterThanOrEqual(0)
    signals.forEach((s, i) => {
      expect(s.k).toBe(source[i].k)
    })
  })
})
