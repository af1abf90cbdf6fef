// What the experiments that compare model files share: the model to score with, and its verdicts on sessions.
import { readFileSync } from 'node:fs'
import { windowFeatures } from '../../src/scoring/features'
import type { M4Model } from '../../src/scoring/inference'
import { MODEL, scoreSessionWith } from '../../src/scoring/service'
import type { Signal } from '../../src/scoring/signals'

/** MODEL=<path to a model JSON> (an older version, say), else the committed model */
export const modelFromEnv = (): M4Model => (process.env.MODEL ? JSON.parse(readFileSync(process.env.MODEL, 'utf8')) : MODEL)

/** how many of the sessions got each verdict, each scored as ingest scores it (the client vector computed from its signals) */
export function verdictCounts(model: M4Model, sessions: Iterable<Signal[]>): Record<string, number> {
  const verdicts: Record<string, number> = {}
  for (const signals of sessions) {
    const r = scoreSessionWith(model, { signals, clientFeatures: windowFeatures(signals) })
    verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1
  }
  return verdicts
}
