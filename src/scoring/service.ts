// M3 scoring as the ingest module and the demo endpoint use it. The model
// gives m3_score = P(human) from the feature vector; hcs is m3_score × 100,
// capped by every integrity check that fails (checks the model cannot make
// from one vector). docs/scoring.md has the caps, thresholds and reasons.
import { FEATURE_INDEX as F, FEATURE_VERSION, FEATURE_WINDOW, NO_DATA, clampFeature, extractFeatures } from './features'
import { trajectoryFingerprint } from './fingerprint'
import { type M3Model, humanProbability } from './inference'
import { type Finding, featureMismatch, featureSanity, isFeatureVector, signalFindings, untrustedVectorFinding } from './integrity'
import modelJson from './model/m3-2026.11.0.json'
import { behaviourReasons } from './reasons'
import type { Signal } from './signals'

export type Verdict = 'human_verified' | 'suspicious' | 'bot' | 'insufficient_data'

export interface ScoreResult {
  /** 0–100, one decimal */
  hcs: number
  /** 0–1, four decimals */
  m3_score: number
  verdict: Verdict
  reasons: string[]
  model_version: string
}

export interface SessionScoreInput {
  /** all stored signals of the session, concatenated in batch order */
  signals: readonly Signal[]
  /** the 34 numbers the client sent in the latest batch */
  clientFeatures: readonly number[]
  /** ingest found the same trajectory fingerprint in another session of the org */
  replayed?: boolean
}

/** the shipped model, as committed */
export const M3_MODEL = modelJson as unknown as M3Model
if (M3_MODEL.feature_version !== FEATURE_VERSION) {
  throw new Error(`model ${M3_MODEL.model_version} was trained on features v${M3_MODEL.feature_version}, extractor is v${FEATURE_VERSION}`)
}

export const MODEL_VERSION: string = M3_MODEL.model_version
export { trajectoryFingerprint }

const HUMAN_VERIFIED_MIN = 70
const BOT_BELOW = 30
/** fewer pointer moves + key downs + scrolls than this (and no measured swipe) is too little to judge */
const MIN_INTERACTIONS = 10

const REPLAYED: Finding = { code: 'replayed_trajectory', cap: 10 }

function interactions(f: readonly number[]): number {
  const count = (i: number) => Math.round(Math.expm1(Math.max(0, f[i])))
  return count(F.ptr_moves_log) + count(F.key_downs_log) + count(F.scroll_events_log)
}

const sufficient = (f: readonly number[]) => interactions(f) >= MIN_INTERACTIONS || f[F.swipe_peak_time_share] !== NO_DATA

export function verdictFor(hcs: number, enoughInteraction: boolean): Verdict {
  if (!enoughInteraction) return 'insufficient_data'
  return hcs >= HUMAN_VERIFIED_MIN ? 'human_verified' : hcs >= BOT_BELOW ? 'suspicious' : 'bot'
}

/**
 * What scoreSession decides before the model runs: the vector the trees score
 * and the integrity checks that failed; null for a malformed client vector
 * (no trees run). None of it depends on the model.
 */
export type SessionEvidence = { features: number[]; findings: Finding[] } | null

/** the model's score capped by every failed check, the verdict and the reasons */
export function judgeEvidence(model: M3Model, evidence: SessionEvidence): ScoreResult {
  if (model.feature_version !== FEATURE_VERSION) throw new Error(`model ${model.model_version} was trained on features v${model.feature_version}, extractor is v${FEATURE_VERSION}`)
  if (!evidence) return { hcs: 0, m3_score: 0, verdict: 'insufficient_data', reasons: ['invalid_features'], model_version: model.model_version }
  const { features, findings } = evidence
  const m3 = humanProbability(model, features)
  const hcs = Math.round(Math.min(m3 * 100, ...findings.map((x) => x.cap)) * 10) / 10
  // A failed integrity check is evidence enough, however short the session.
  const enough = sufficient(features) || findings.length > 0
  const verdict = verdictFor(hcs, enough)
  const reasons = [...new Set(findings.map((x) => x.code))]
  reasons.push(...behaviourReasons(features, verdict === 'human_verified'))
  if (!enough) reasons.push('insufficient_interaction')
  else if (!reasons.length) reasons.push('low_model_score')
  return { hcs, m3_score: Math.round(m3 * 1e4) / 1e4, verdict, reasons, model_version: model.model_version }
}

/** a vector from outside (demo, server-side batch): sanity only */
function foreignEvidence(features: readonly number[], extra: readonly Finding[]): SessionEvidence {
  if (!isFeatureVector(features)) return null
  const sanity = featureSanity(features)
  // Clamped, so the trees see only what the extractor could have produced.
  return { features: features.map(clampFeature), findings: sanity ? [sanity, ...extra] : [...extra] }
}

/** everything scoreSession checks, without the model (evaluation scores it with other models) */
export function sessionEvidence(input: SessionScoreInput): SessionEvidence {
  const { signals, clientFeatures, replayed } = input
  const extra = replayed ? [REPLAYED] : []
  if (signals.length === 0) {
    const untrusted = isFeatureVector(clientFeatures) ? untrustedVectorFinding(clientFeatures[F.untrusted_share]) : undefined
    return foreignEvidence(clientFeatures, untrusted ? [untrusted, ...extra] : extra)
  }
  const features = extractFeatures(signals.length > FEATURE_WINDOW ? signals.slice(-FEATURE_WINDOW) : signals)
  const mismatch = featureMismatch(clientFeatures, features)
  return { features, findings: [...(mismatch ? [mismatch] : []), ...signalFindings(signals), ...extra] }
}

/** scoreSession with another model (the leave-one-family-out models of `npm run eval`); ingest uses scoreSession */
export function scoreSessionWith(model: M3Model, input: SessionScoreInput): ScoreResult {
  return judgeEvidence(model, sessionEvidence(input))
}

export function scoreFeatures(features: readonly number[]): ScoreResult {
  return judgeEvidence(M3_MODEL, foreignEvidence(features, []))
}

export function scoreSession(input: SessionScoreInput): ScoreResult {
  return scoreSessionWith(M3_MODEL, input)
}
