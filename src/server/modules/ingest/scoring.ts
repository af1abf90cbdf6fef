import {
  scoreSession,
  trajectoryFingerprint,
  type ScoreResult,
  type SessionScoreInput,
  type VerdictThresholds,
} from '../../../scoring/service'
import type { Signal } from '../../../scoring/signals'

/** The one place ingest calls the model, so the model can change without touching the rest of ingest. */
export function score(input: SessionScoreInput, thresholds: VerdictThresholds): ScoreResult {
  return scoreSession(input, thresholds)
}

/** Fingerprint of a session's pointer or touch trajectory (replay detection), or null when it has too little movement. */
export function fingerprint(signals: readonly Signal[]): string | null {
  return trajectoryFingerprint(signals)
}
