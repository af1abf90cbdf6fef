import { describe, expect, it } from 'bun:test'
import * as v from 'valibot'
import { loadBrowserVisits, loadPeopleThroughBrowsers, loadReal } from '../../ml/data/load'
import { BROWSER_TOOL } from '../../ml/training/real'
import { MODEL } from '../../src/scoring/service'
import type { Signal } from '../../src/scoring/signals'
import { SignalEvent } from '../../src/server/modules/ingest/model'

describe('the humanizer loop recorded in real browsers (ml/data/browser)', () => {
  const visits = loadBrowserVisits(BROWSER_TOOL)

  it('holds visits of each of the three engines, each the stored signals of a visit that moved the pointer', () => {
    for (const browser of ['chromium', 'firefox', 'webkit'])
      expect(visits.filter((x) => x.browser === browser).length).toBeGreaterThanOrEqual(40)
    for (const visit of visits) {
      expect(visit.tool).toBe(BROWSER_TOOL)
      expect(visit.signals.filter((s) => s.k === 'mm').length).toBeGreaterThan(100)
    }
  })

  it('is in the ingest format: every event passes the contract’s schema, times never go back within a visit', () => {
    for (const visit of visits) {
      for (const s of visit.signals) expect(v.safeParse(SignalEvent, s).success).toBe(true)
      for (let i = 1; i < visit.signals.length; i++) expect(visit.signals[i]!.t).toBeGreaterThanOrEqual(visit.signals[i - 1]!.t)
    }
  })

  it('is a bot family of the shipped model’s training', () => {
    expect((MODEL.training as { bots: string[] }).bots).toContain('browser_humanizer (browser)')
  })
})

describe('real people played into real browsers (ml/data/browser/people.jsonl.gz)', () => {
  const visits = loadPeopleThroughBrowsers()
  const sapi = loadReal('sapimouse')

  it('holds each engine at the recorded moves and at 500 Hz, every visit a window that moved the pointer in the page', () => {
    const of = (engine: string, rate: number, seconds: number) =>
      visits.filter((x) => x.browser.includes(engine) && x.rate === rate && x.seconds === seconds).length
    for (const engine of ['Chromium', 'Firefox', 'WebKit'])
      for (const rate of [0, 500]) expect(of(engine, rate, 10)).toBeGreaterThanOrEqual(20)
    // minute-long visits where an engine passes a fast mouse's reports on while idle
    for (const engine of ['Firefox', 'WebKit']) expect(of(engine, 500, 60)).toBeGreaterThanOrEqual(10)
    for (const visit of visits) {
      expect(visit.recorded.filter((s) => s.k === 'mm').length).toBeGreaterThan(20)
      // the page saw the movement: an engine groups or drops moves (and a 500 Hz mouse makes more), never most of them
      expect(visit.signals.filter((s) => s.k === 'mm').length).toBeGreaterThan(visit.recorded.filter((s) => s.k === 'mm').length / 4)
    }
  })

  it('plays windows of the people in ml/data/real: each recorded window is a stretch of one of its person’s sessions', () => {
    for (const visit of visits) {
      const moves = visit.recorded.filter((s) => s.k === 'mm')
      const own = sapi.filter((s) => s.user === visit.user)
      expect(own.length).toBeGreaterThan(0)
      // the window's times are its session's, less the window's start, to a tenth of a millisecond
      const stretchAt = (mm: Signal[], at: number) =>
        moves.every((m, i) => {
          const x = mm[at + i]
          return x !== undefined && x.x === m.x && x.y === m.y && Math.abs(x.t - mm[at]!.t - (m.t - moves[0]!.t)) < 0.11
        })
      const found = own.some((s) => {
        const mm = s.signals.filter((x) => x.k === 'mm')
        return mm.some((_, at) => stretchAt(mm, at))
      })
      expect(found).toBe(true)
    }
  })

  it('stores what the service stored: every event passes the contract’s schema, times never go back within a visit', () => {
    for (const visit of visits) {
      for (const s of visit.signals) expect(v.safeParse(SignalEvent, s).success).toBe(true)
      for (let i = 1; i < visit.signals.length; i++) expect(visit.signals[i]!.t).toBeGreaterThanOrEqual(visit.signals[i - 1]!.t)
    }
  })
})
