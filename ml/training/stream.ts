// The full scoring pipeline as ingest runs it, for evaluation: one
// organization's sessions in arrival order. A session is `replayed` when an
// earlier session of the stream has the same non-null trajectory fingerprint
// (ingest's lookup in `sessions`), and it is scored by the service (model +
// integrity checks) with any model. Each session arrives as one batch.
import { windowFeatures } from '../../src/scoring/features'
import type { M4Model } from '../../src/scoring/inference'
import { type ScoreResult, type SessionEvidence, judgeEvidence, sessionEvidence, trajectoryFingerprint } from '../../src/scoring/service'
import type { Signal } from '../../src/scoring/signals'

export type StreamSession = {
  signals: readonly Signal[]
  /** what the client sent; omitted = an honest SDK (extractFeatures over the last FEATURE_WINDOW signals) */
  clientFeatures?: readonly number[]
}

export type StreamEntry = { fingerprint: string | null; replayed: boolean; evidence: SessionEvidence }

/**
 * Runs the stream once through everything that does not depend on the model
 * (fingerprint, replay flag, features, integrity checks). Takes an iterable so
 * a large stream can be generated on the fly: only the evidence is kept.
 */
export function streamEvidence(sessions: Iterable<StreamSession>): StreamEntry[] {
  /** fingerprints of the sessions so far: ingest's `sessions.fingerprint`; null never matches (SQL `= null`) */
  const seen = new Set<string>()
  const out: StreamEntry[] = []
  for (const { signals, clientFeatures } of sessions) {
    const fingerprint = trajectoryFingerprint(signals)
    const replayed = fingerprint !== null && seen.has(fingerprint)
    if (fingerprint !== null) seen.add(fingerprint)
    const client = clientFeatures ?? windowFeatures(signals)
    out.push({ fingerprint, replayed, evidence: sessionEvidence({ signals, clientFeatures: client, replayed }) })
  }
  return out
}

/** what scoreSession would answer for each session of the stream, with `model` in place of the shipped one */
export function scoreStream(model: M4Model, entries: readonly StreamEntry[]): ScoreResult[] {
  return entries.map((e) => judgeEvidence(model, e.evidence))
}
