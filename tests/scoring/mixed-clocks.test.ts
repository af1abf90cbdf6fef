// Mouse strokes whose sampling clocks switch back and forth (session-features.ts pointerClocks, evidence.ts
// CLOCK_SWITCHES_MIN): strokes of different devices in one session, as a bot stitches them from recordings.
import { describe, expect, it } from 'bun:test'
import { loadPeopleThroughBrowsers, loadReal } from '../../ml/data/load'
import { stitchFromCorpus } from '../../ml/generators/index'
import { createRng, deriveSeed } from '../../ml/synth/prng'
import { reasonDetails } from '../../src/scoring/reasons'
import { sessionFeatures } from '../../src/scoring/session-features'
import type { Signal } from '../../src/scoring/signals'
import { evidenceCoded, judge, mostInRealPeople } from '../helpers/rule-evidence'

/** strokes of 20 moves (a curved 300 px path), one per gap in `gaps` (ms between its moves), a second's rest between them */
function visit(gaps: readonly number[], jitter = 0): Signal[] {
  const out: Signal[] = []
  let t = 100
  gaps.forEach((gap, k) => {
    for (let i = 1; i <= 20; i++) {
      // jitter: every other gap longer and shorter by that share (no clean clock at 0.5)
      t += Math.round(gap * (1 + (i % 2 ? jitter : -jitter)))
      out.push({ t, k: 'mm', x: 100 + 15 * i, y: 200 + 40 * k + Math.round(20 * Math.sin(i / 3)) })
    }
    t += 1000
  })
  return out
}

const clockEvidence = (signals: Signal[]) => evidenceCoded(signals, 'pointer_mixed_clocks')

describe('sampling clocks that switch between strokes', () => {
  it('counts the strokes on a clean clock, those off the session’s, and the switches', () => {
    expect(sessionFeatures(visit([17, 17, 7, 17, 7, 17, 17])).pointerClocks).toEqual({ clean: 7, off: 2, switches: 4 })
    // one device: no switch
    expect(sessionFeatures(visit([17, 17, 17, 17, 17])).pointerClocks).toEqual({ clean: 5, off: 0, switches: 0 })
    // dropped frames halve or third a rate: the same device
    expect(sessionFeatures(visit([8, 17, 8, 25, 8, 17, 8])).pointerClocks).toEqual({ clean: 7, off: 0, switches: 0 })
    // a fast mouse's reports passed on as they come between frames (WebKit: 2 ms among 16 ms, which the
    // 4 ms burst merge reads as 4 ms), or any clock past the 3× window (17 against 5 ms): the same device,
    // where 17 against 7 ms above is not
    expect(sessionFeatures(visit([16, 16, 4, 16, 4, 16, 16])).pointerClocks).toEqual({ clean: 7, off: 0, switches: 0 })
    expect(sessionFeatures(visit([17, 17, 5, 17, 5, 17, 17])).pointerClocks).toEqual({ clean: 7, off: 0, switches: 0 })
    // uneven gaps are no clock at all
    expect(sessionFeatures(visit([17, 7, 17, 7, 17], 0.5)).pointerClocks).toEqual({ clean: 0, off: 0, switches: 0 })
  })

  it('four switches with two strokes off the clock are mild evidence, named with their figures', () => {
    const signals = visit([17, 17, 7, 17, 7, 17, 17])
    expect(clockEvidence(signals)).toEqual([{ modality: 'pointer', z: -1.5, codes: ['pointer_mixed_clocks'] }])
    expect(reasonDetails(signals, ['pointer_mixed_clocks']).pointer_mixed_clocks).toContain('2 of 7 evenly sampled mouse movements')
    // three switches are not
    expect(clockEvidence(visit([17, 17, 7, 17, 7, 7, 7]))).toEqual([])
    // on a coarse timer (100 ms) there is no clock to read
    expect(clockEvidence(visit([17, 17, 7, 17, 7, 17, 17]).map((s) => ({ ...s, t: Math.round(s.t / 100) * 100 })))).toEqual([])
  })

  it('keeps a session stitched from different people’s strokes from passing as verified', () => {
    const sapi = loadReal('sapimouse')
    let coded = 0
    for (let i = 0; i < 40; i++) {
      const signals = stitchFromCorpus(createRng(deriveSeed(11, 'mixed-clocks-test', i)), sapi)
      if (!clockEvidence(signals).length) continue
      coded++
      const r = judge(signals)
      expect(r.verdict).not.toBe('human_verified')
      expect(r.reasons).toContain('pointer_mixed_clocks')
    }
    // about a third of such sessions mix a 60 Hz person's strokes with a faster or slower display's (ml/experiments/mixed-clocks.ts)
    expect(coded).toBeGreaterThan(5)
  }, 30_000)

  it('real people’s windows as headed browsers delivered them never get the code, a 500 Hz mouse in WebKit included', () => {
    const visits = loadPeopleThroughBrowsers()
    expect(visits.filter((v) => v.browser.includes('WebKit') && v.rate === 500).length).toBeGreaterThanOrEqual(30)
    // (the 60 s ones all had it before a clock past the 3× window was read as the same device)
    for (const v of visits) expect(clockEvidence(v.signals)).toEqual([])
  })

  it('real people keep one clock: at most one switch, never the code', () => {
    const most = mostInRealPeople('pointer_mixed_clocks', (f) => f.pointerClocks.switches)
    // one DELBOT recording switches once: the count is read from real strokes, not always zero
    expect(most).toBe(1)
  }, 30_000)
})
