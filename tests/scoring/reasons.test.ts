import { describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { explainReasons, meaningOf, REASON_MEANINGS, reasonDetails } from '../../src/scoring/reasons'
import { scoreSession } from '../../src/scoring/service'
import type { Signal } from '../../src/scoring/signals'
import { extractFeatures } from '../../src/scoring/features'

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')

/**
 * Every code the scorer can emit, read from its sources: the snake_case string literals of the three
 * files that produce reasons, less the two verdict values they also name. A code added there without a
 * meaning here fails the test.
 */
function emittableCodes(): Set<string> {
  const codes = new Set<string>()
  for (const file of ['src/scoring/evidence.ts', 'src/scoring/integrity.ts', 'src/scoring/service.ts']) {
    for (const m of read(file).matchAll(/'([a-z][a-z0-9]*(?:_[a-z0-9]+)+)'/g)) codes.add(m[1]!)
  }
  codes.delete('human_verified')
  codes.delete('insufficient_data')
  return codes
}

/** the codes of docs/scoring.md's "Reason codes" table (first column) */
function documentedCodes(): Set<string> {
  const text = read('docs/scoring.md')
  const section = text.slice(text.indexOf('## Reason codes'), text.indexOf('\n## ', text.indexOf('## Reason codes') + 3))
  return new Set([...section.matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((m) => m[1]!))
}

describe('reason catalog', () => {
  it('finds the scorer’s codes in its sources (the scan itself works)', () => {
    const codes = emittableCodes()
    for (const known of [
      'typing_fixed_rhythm',
      'untrusted_events',
      'pointer_dynamics_unnatural',
      'insufficient_interaction',
      'invalid_features',
    ])
      expect(codes).toContain(known)
    expect(codes.size).toBeGreaterThan(30)
  })

  it('every code the scorer can emit has a plain-language meaning', () => {
    const missing = [...emittableCodes()].filter((c) => !REASON_MEANINGS[c])
    expect(missing).toEqual([])
  })

  it('every code the scorer can emit, and every catalogued code, is listed in docs/scoring.md', () => {
    const documented = documentedCodes()
    expect(documented.size).toBeGreaterThan(30)
    expect([...emittableCodes()].filter((c) => !documented.has(c))).toEqual([])
    expect(Object.keys(REASON_MEANINGS).filter((c) => !documented.has(c))).toEqual([])
  })

  it('an unknown code still gets a sentence, never undefined', () => {
    expect(meaningOf('no_such_code')).toBeString()
  })
})

/** n key presses at a fixed 100 ms rhythm, each held 80 ms: a script */
function scriptedTyping(n: number): Signal[] {
  const out: Signal[] = []
  for (let i = 0; i < n; i++) {
    out.push({ t: i * 100, k: 'kd', kc: 'char' }, { t: i * 100 + 80, k: 'ku', kc: 'char' })
  }
  return out
}

describe('reason figures', () => {
  it('typing at a fixed rhythm: the figures name the spread, the key count and the human range', () => {
    const signals = scriptedTyping(40)
    const r = scoreSession({ signals, clientFeatures: extractFeatures(signals) })
    expect(r.reasons).toContain('typing_fixed_rhythm')
    const detail = reasonDetails(signals, r.reasons).typing_fixed_rhythm!
    expect(detail).toContain('0 ms spread')
    expect(detail).toContain('over 40 keys')
    expect(detail).toContain('0.49')
  })

  it('untrusted events: the count and share', () => {
    const signals: Signal[] = [
      { t: 0, k: 'mm', x: 1, y: 1, tr: false },
      { t: 10, k: 'mm', x: 2, y: 2 },
      { t: 20, k: 'mm', x: 3, y: 3 },
      { t: 30, k: 'mm', x: 4, y: 4 },
    ]
    expect(reasonDetails(signals, ['untrusted_events']).untrusted_events).toBe('1 of 4 input events untrusted (25 %)')
  })

  it('time going back: how often', () => {
    const signals: Signal[] = [
      { t: 10, k: 'kd', kc: 'char' },
      { t: 5, k: 'ku', kc: 'char' },
      { t: 20, k: 'kd', kc: 'char' },
      { t: 1, k: 'ku', kc: 'char' },
    ]
    expect(reasonDetails(signals, ['timestamps_non_monotonic']).timestamps_non_monotonic).toBe('time goes back 2 times')
  })

  it('presses without movement: how many, and whether on one spot', () => {
    const press = (t: number, x: number): Signal[] => [
      { t, k: 'md', x, y: 300 },
      { t: t + 80, k: 'mu', x, y: 300 },
    ]
    const oneSpot = [...press(0, 500), ...press(400, 500), ...press(800, 500)]
    const spots = [...press(0, 500), ...press(400, 620), ...press(800, 500)]
    expect(reasonDetails(oneSpot, ['click_without_movement']).click_without_movement).toBe('3 presses on one spot, no pointer movement')
    expect(reasonDetails(spots, ['click_without_movement']).click_without_movement).toBe(
      '3 presses at different spots, no pointer movement'
    )
  })

  it('no signals (purged, or a client vector only): meanings without figures', () => {
    expect(explainReasons(['typing_fixed_rhythm', 'event_burst'], [])).toEqual([
      { code: 'typing_fixed_rhythm', meaning: REASON_MEANINGS.typing_fixed_rhythm!, detail: null },
      { code: 'event_burst', meaning: REASON_MEANINGS.event_burst!, detail: null },
    ])
  })

  it('a code without figures (from the client vector path) gets null, not a made-up figure', () => {
    expect(reasonDetails(scriptedTyping(10), ['features_out_of_range', 'click_timing_unnatural'])).toEqual({
      features_out_of_range: null,
      click_timing_unnatural: null,
    })
  })
})
