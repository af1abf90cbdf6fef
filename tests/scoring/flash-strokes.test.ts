// Whole mouse movements over in less than 60 ms (session-features.ts pointerFlashes, evidence.ts
// FLASHES_MIN): a script's stepped moves delivered as they are sent, which the trees never see.
import { describe, expect, it } from 'bun:test'
import { reasonDetails } from '../../src/scoring/reasons'
import { sessionFeatures } from '../../src/scoring/session-features'
import type { Signal } from '../../src/scoring/signals'
import { evidenceCoded, judge, mostInRealPeople } from '../helpers/rule-evidence'

/**
 * A visit of `fast` strokes of 300 px, 20 moves `gap` ms apart, and `slow` strokes of the same path over
 * 400 ms, each ended by a click and a second's rest: Puppeteer's mouse.move(x, y, { steps: 20 }) to each target.
 */
function visit(fast: number, slow = 0, gap = 2, kind: 'mm' | 'tm' = 'mm'): Signal[] {
  const out: Signal[] = []
  let t = 100
  for (let k = 0; k < fast + slow; k++) {
    const step = k < fast ? gap : 20
    const x0 = 100 + 40 * k
    if (kind === 'tm') out.push({ t, k: 'ts', x: x0, y: 200 })
    for (let i = 1; i <= 20; i++) {
      t += step
      out.push({ t, k: kind, x: x0 + 15 * i, y: 200 + (k % 2 ? i : -i) })
    }
    const at = out[out.length - 1] as { x: number; y: number }
    if (kind === 'tm') out.push({ t: t + 1, k: 'te', x: at.x, y: at.y })
    else out.push({ t: t + 90, k: 'md', x: at.x, y: at.y }, { t: t + 180, k: 'mu', x: at.x, y: at.y })
    t += 1000
  }
  return out
}

const flashEvidence = (signals: Signal[]) => evidenceCoded(signals, 'pointer_flash_strokes')

describe('mouse movements over faster than a hand aims', () => {
  it('counts the strokes of 100 px or more, and those over in less than 60 ms', () => {
    const f = sessionFeatures(visit(4, 2))
    expect(f.pointerFlashes).toEqual({ long: 6, flashes: 4 })
    // the trees see only the two slow strokes
    expect(f.strokes).toBe(2)
    expect(sessionFeatures(visit(0, 3)).pointerFlashes).toEqual({ long: 3, flashes: 0 })
    // a finger's flick is not a mouse's: a touch screen's swipes are that fast
    expect(sessionFeatures(visit(4, 0, 2, 'tm')).pointerFlashes).toEqual({ long: 0, flashes: 0 })
  })

  it('a session whose every movement is a flash is a bot for it, not insufficient data', () => {
    const signals = visit(6)
    expect(sessionFeatures(signals).pointer).toBeNull()
    expect(flashEvidence(signals)).toEqual([{ modality: 'pointer', z: -1.5, codes: ['pointer_flash_strokes'] }])
    const r = judge(signals)
    expect(r.verdict).toBe('bot')
    expect(r.reasons).toContain('pointer_flash_strokes')
    expect(reasonDetails(signals, ['pointer_flash_strokes']).pointer_flash_strokes).toContain('6 of 6 mouse movements')
  })

  it('two flashes, or flashes that are under half of the long strokes, are not evidence', () => {
    expect(flashEvidence(visit(2))).toEqual([])
    expect(judge(visit(2)).verdict).toBe('insufficient_data')
    expect(flashEvidence(visit(3, 4))).toEqual([])
    expect(flashEvidence(visit(3, 3))).toHaveLength(1)
  })

  it('real people make at most one flash in a session, and never get the code', () => {
    const most = mostInRealPeople('pointer_flash_strokes', (f) => f.pointerFlashes.flashes)
    // one SapiMouse window has one: the count is read from real strokes, not always zero
    expect(most).toBe(1)
  }, 30_000)
})
