// TEMPORARY local adapter until src/modules/scoring/service.ts lands; then these two functions only delegate.
import { createHash } from 'node:crypto'
import type { Signal } from '../scoring/signals'

export type ScoreResult = { hcs: number; m3_score: number; verdict: string; reasons: string[]; model_version: string }

/** The one place ingest calls the model, so the model can change without touching ingest. */
export function score(input: { signals: readonly Signal[]; clientFeatures: readonly number[]; replayed?: boolean }): ScoreResult {
  const hcs = input.replayed ? 10 : 50
  return { hcs, m3_score: 0.5, verdict: input.signals.length < 20 ? 'insufficient_data' : 'suspicious', reasons: input.replayed ? ['trajectory_replayed'] : [], model_version: 'stub' }
}

/** Fingerprint of a session's pointer trajectory (replay detection), or null without one. */
export function fingerprint(signals: readonly Signal[]): string | null {
  const points = signals.filter((s) => s.x !== undefined && s.y !== undefined).map((s) => `${s.x},${s.y}`)
  return points.length < 10 ? null : createHash('sha256').update(points.join(';')).digest('hex')
}
