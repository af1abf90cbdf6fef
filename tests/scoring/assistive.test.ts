import { describe, expect, it } from 'bun:test'
import { mouseKeysVisit } from '../../ml/generators/assistive'
import { loadAllReal } from '../../ml/data/load'
import { createRng } from '../../ml/synth/prng'
import { windowFeatures } from '../../src/scoring/features'
import { reasonDetails } from '../../src/scoring/reasons'
import { scoreSession } from '../../src/scoring/service'
import { sessionFeatures } from '../../src/scoring/session-features'
import type { Signal } from '../../src/scoring/signals'

const score = (signals: readonly Signal[]) => scoreSession({ signals, clientFeatures: windowFeatures(signals) })

/** the same visit with every position turned by `degrees` about the viewport's middle: same speeds, same times, other directions */
const rotated = (signals: readonly Signal[], degrees: number): Signal[] => {
  const a = (degrees * Math.PI) / 180
  const [c, s] = [Math.cos(a), Math.sin(a)]
  const round = (v: number) => Math.round(v * 10) / 10
  return signals.map((e) =>
    e.x === undefined || e.y === undefined
      ? e
      : { ...e, x: round(640 + (e.x - 640) * c - (e.y - 360) * s), y: round(360 + (e.x - 640) * s + (e.y - 360) * c) }
  )
}

/** visits of 28–62 s with several targets, so the floor's minimum of runs is no question; turned by 20° the trees put them at hcs 1–16 */
const visits = [3, 7, 11, 23].map((seed) => mouseKeysVisit(createRng(seed)))

describe('Mouse Keys: a person moving the cursor with the keyboard', () => {
  it('moves only in compass runs, which the features see', () => {
    for (const v of visits) {
      const c = sessionFeatures(v).pointerCompass
      expect(c.runs).toBeGreaterThanOrEqual(6)
      expect(c.share).toBeGreaterThan(0.85)
      expect(c.directions).toBeGreaterThanOrEqual(2)
    }
  })

  it('is suspicious at worst, never a bot, and the reasons say Mouse Keys', () => {
    for (const v of visits) {
      const r = score(v)
      expect(r.verdict).not.toBe('bot')
      expect(r.hcs).toBeGreaterThanOrEqual(30)
      if (r.verdict === 'suspicious') expect(r.reasons[0]).toBe('pointer_mouse_keys')
    }
  })

  it('the dashboard explains the code with the session’s own figures', () => {
    const r = score(visits[0]!)
    const detail = reasonDetails(visits[0]!, r.reasons).pointer_mouse_keys
    const c = sessionFeatures(visits[0]!).pointerCompass
    expect(detail).toContain(`in ${c.runs} straight runs along ${c.directions} of the eight`)
    expect(detail).toContain('at most 48 %')
  })

  it('only along the compass: the same visit turned by 20° is judged by the trees alone (a bot)', () => {
    // the control: nothing but the directions changed, so the floor above is what keeps the person out of `bot`
    for (const v of visits) {
      const turned = rotated(v, 20)
      expect(sessionFeatures(turned).pointerCompass.share).toBeLessThan(0.5)
      const r = score(turned)
      expect(r.verdict).toBe('bot')
      expect(r.reasons).not.toContain('pointer_mouse_keys')
    }
  })

  it('does not shelter a script: untrusted events along the compass are still a bot', () => {
    const v = visits[0]!.map((e) => (e.k === 'mm' ? { ...e, tr: false } : e))
    const r = score(v)
    expect(r.verdict).toBe('bot')
    expect(r.reasons).toContain('untrusted_events')
  })

  it('is never what a real person’s hand does: no real recording comes near the floor', () => {
    const real = loadAllReal().filter((s) => s.label === 'human')
    expect(real.length).toBeGreaterThan(800)
    let largest = 0
    for (const s of real) largest = Math.max(largest, sessionFeatures(s.signals).pointerCompass.share)
    // 0.48 measured (docs/scoring.md): far under the floor's 0.85
    expect(largest).toBeLessThan(0.6)
  })
})

describe('compass runs', () => {
  const path = (points: [number, number][], gap = 16): Signal[] => points.map(([x, y], i) => ({ t: 100 + i * gap, k: 'mm', x, y }))
  it('a diagonal of equal steps with a pixel of rounding is one run; the same steps at 20° are none', () => {
    const diagonal = Array.from({ length: 12 }, (_, i): [number, number] => [100 + 6 * i + (i % 3 === 1 ? 0.8 : 0), 100 + 6 * i])
    expect(sessionFeatures(path(diagonal)).pointerCompass).toEqual({ runs: 1, directions: 1, share: expect.closeTo(1, 1) })
    const a = (20 * Math.PI) / 180
    const slanted = Array.from({ length: 12 }, (_, i): [number, number] => [100 + 8 * i * Math.cos(a), 100 + 8 * i * Math.sin(a)])
    expect(sessionFeatures(path(slanted)).pointerCompass).toEqual({ runs: 0, directions: 0, share: 0 })
  })

  it('an L (right, then up without a pause) is two runs in two directions; a run shorter than 40 px is none', () => {
    const right = Array.from({ length: 10 }, (_, i): [number, number] => [100 + 8 * i, 200])
    const up = Array.from({ length: 10 }, (_, i): [number, number] => [172, 200 - 8 * (i + 1)])
    expect(sessionFeatures(path([...right, ...up])).pointerCompass).toMatchObject({ runs: 2, directions: 2 })
    const short = Array.from({ length: 5 }, (_, i): [number, number] => [100 + 8 * i, 200])
    expect(sessionFeatures(path(short)).pointerCompass.runs).toBe(0)
  })
})
