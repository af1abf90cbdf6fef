import { describe, expect, it } from 'bun:test'
import { extractFeatures } from '../../src/scoring/features'
import type { M4Model } from '../../src/scoring/inference'
import { MODEL, scoreSession, scoreSessionWith, trajectoryFingerprint } from '../../src/scoring/service'
import type { Signal } from '../../src/scoring/signals'
import { replaySession } from '../../ml/synth/bots'
import { createRng, deriveSeed } from '../../ml/synth/prng'
import { sessionFor } from '../../ml/training/pipeline'
import { scoreStream, streamEvidence } from '../../ml/training/stream'

const SEED = 777

/** a replay whose recorded source scores as a human and shares its fingerprint */
function replayWithSource(): { signals: Signal[]; source: Signal[] } {
  for (let i = 0; ; i++) {
    const r = replaySession(createRng(deriveSeed(SEED, 'replay', i)))
    const fp = trajectoryFingerprint(r.source)
    if (
      fp !== null &&
      fp === trajectoryFingerprint(r.signals) &&
      scoreSession({ signals: r.source, clientFeatures: extractFeatures(r.source) }).hcs >= 70
    )
      return r
  }
}

describe('scoreSessionWith', () => {
  it('with the shipped model answers exactly as scoreSession', () => {
    for (const family of ['human', 'linear_constant', 'untrusted'] as const) {
      const signals = sessionFor(SEED, family, 0)
      const input = { signals, clientFeatures: extractFeatures(signals) }
      expect(scoreSessionWith(MODEL, input)).toEqual(scoreSession(input))
      expect(scoreSessionWith(MODEL, { ...input, replayed: true })).toEqual(scoreSession({ ...input, replayed: true }))
    }
  })

  it('uses the model it is given', () => {
    const signals = sessionFor(SEED, 'human', 1)
    const doubter: M4Model = {
      ...MODEL,
      model_version: 'test-doubter',
      pointer: { ...MODEL.pointer, calibration: { method: 'platt', a: 0, b: -40 } },
    }
    const r = scoreSessionWith(doubter, { signals, clientFeatures: extractFeatures(signals) })
    expect(r.model_version).toBe('test-doubter')
    expect(r.m3_score).toBe(0)
    expect(r.hcs).toBe(0)
  })
})

describe('org stream (the replay lookup ingest does)', () => {
  it('flags a replay that arrives after its source, caps its hcs and says why', () => {
    const { signals: replay, source } = replayWithSource()
    const other = sessionFor(SEED, 'human', 2)
    const entries = streamEvidence([{ signals: source }, { signals: other }, { signals: replay }])
    expect(entries.map((e) => e.replayed)).toEqual([false, false, true])
    const [first, , replayed] = scoreStream(MODEL, entries)
    expect(first.reasons).not.toContain('replayed_trajectory')
    expect(first.hcs).toBeGreaterThanOrEqual(70)
    expect(replayed.reasons).toContain('replayed_trajectory')
    expect(replayed.hcs).toBeLessThanOrEqual(10)
    expect(replayed.verdict).toBe('bot')
    // The same as ingest would get from scoreSession with replayed: true.
    expect(replayed).toEqual(scoreSession({ signals: replay, clientFeatures: extractFeatures(replay), replayed: true }))
  })

  it('only an earlier session counts, and sessions without a fingerprint never match', () => {
    const { signals: replay, source } = replayWithSource()
    expect(streamEvidence([{ signals: replay }, { signals: source }]).map((e) => e.replayed)).toEqual([false, true])
    const lone: Signal[] = [{ t: 10, k: 'c', x: 5, y: 5 }]
    const entries = streamEvidence([{ signals: [], clientFeatures: extractFeatures([]) }, { signals: lone }, { signals: lone }])
    expect(entries.map((e) => e.fingerprint)).toEqual([null, null, null])
    expect(entries.map((e) => e.replayed)).toEqual([false, false, false])
  })

  it('client features default to the honest SDK; a forged vector is checked like in ingest', () => {
    const signals = sessionFor(SEED, 'human', 3)
    const other = sessionFor(SEED, 'human', 4)
    const forged = extractFeatures(other).map((v, i) => (i < 6 ? v + 5 : v))
    const [honest, lying] = scoreStream(MODEL, streamEvidence([{ signals }, { signals: other, clientFeatures: forged }]))
    expect(honest.reasons).not.toContain('feature_mismatch')
    expect(lying.reasons).toContain('feature_mismatch')
  })
})
