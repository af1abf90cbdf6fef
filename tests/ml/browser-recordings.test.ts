import { describe, expect, it } from 'bun:test'
import * as v from 'valibot'
import { loadBrowserVisits } from '../../ml/data/load'
import { BROWSER_TOOL } from '../../ml/training/real'
import { MODEL } from '../../src/scoring/service'
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
