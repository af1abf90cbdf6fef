// M4 scoring as the ingest module and the demo endpoint use it. Each
// modality the session has gives evidence in log-odds (evidence.ts): pointer
// from calibrated trees over the stored signals (session-features.ts),
// keyboard, scroll, touch and clicks from rules. m3_score = sigmoid(combine);
// a modality without data adds nothing. hcs is m3_score × 100, capped by every
// integrity check that fails. docs/scoring.md has the method, caps,
// thresholds and reason codes.
import { FEATURE_INDEX as F, FEATURE_NAMES, clampFeature, windowFeatures } from './features'
import { type Evidence, type Modality, sessionEvidenceOf, vectorEvidenceOf } from './evidence'
import { trajectoryFingerprint } from './fingerprint'
import { type M4Model, sigmoid } from './inference'
import { type Finding, featureMismatch, featureSanity, isFeatureVector, signalFindings, untrustedVectorFinding } from './integrity'
import modelJson from './model/m4-2026.11.29.json'
import { POINTER_FEATURE_NAMES, STROKE_FEATURE_NAMES, type SessionFeatures, sessionFeatures } from './session-features'
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
  /** ingest found the session's strokes or typing rhythm in earlier sessions of the org (replay.ts) */
  reused?: { strokes: boolean; typing: boolean }
}

/**
 * A model trained on other features than the extractors compute would score garbage without an error:
 * its trees index features by position, so the names it was trained on must be the extractors'.
 */
export function checkModelFeatures(model: M4Model): void {
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((name, i) => name === b[i])
  if (!same(model.pointer.feature_names, POINTER_FEATURE_NAMES)) {
    throw new Error(`model ${model.model_version}: its pointer features are not those of session-features.ts`)
  }
  if (model.stroke && !same(model.stroke.feature_names, STROKE_FEATURE_NAMES)) {
    throw new Error(`model ${model.model_version}: its stroke features are not those of session-features.ts`)
  }
  const vector = model.vector_pointer
  if (
    !same(
      vector.feature_names,
      vector.feature_index.map((i) => FEATURE_NAMES[i] ?? '')
    )
  ) {
    throw new Error(`model ${model.model_version}: its client-vector features are not those of features.ts`)
  }
}

/** the shipped model, as committed */
export const MODEL = modelJson as unknown as M4Model
checkModelFeatures(MODEL)

export const MODEL_VERSION: string = MODEL.model_version
export { trajectoryFingerprint }

/** hcs ≥ humanAbove → human_verified; hcs < botBelow → bot; between → suspicious. An organization may set its own. */
export type VerdictThresholds = { botBelow: number; humanAbove: number }
export const DEFAULT_THRESHOLDS: VerdictThresholds = { botBelow: 30, humanAbove: 70 }

const REPLAYED: Finding = { code: 'replayed_trajectory', cap: 10 }
const REUSED_STROKES: Finding = { code: 'replayed_strokes', cap: 10 }
const REUSED_TYPING: Finding = { code: 'replayed_typing_rhythm', cap: 10 }

export function verdictFor(hcs: number, enoughInteraction: boolean, t: VerdictThresholds = DEFAULT_THRESHOLDS): Verdict {
  if (!enoughInteraction) return 'insufficient_data'
  return hcs >= t.humanAbove ? 'human_verified' : hcs >= t.botBelow ? 'suspicious' : 'bot'
}

/**
 * What scoreSession decides before the model runs: the server's 34-number
 * vector, the per-modality features of the stored signals (null when only a
 * client vector was sent) and the integrity checks that failed; null for a
 * malformed client vector (nothing runs). None of it depends on the model.
 */
export type SessionEvidence = { features: number[]; session: SessionFeatures | null; findings: Finding[] } | null

const NATURAL: Partial<Record<Modality, string>> = {
  pointer: 'pointer_dynamics_natural',
  keyboard: 'typing_rhythm_natural',
  scroll: 'scroll_behaviour_natural',
}

/** the evidence of every modality the session has (none: nothing to judge) */
export function modalityEvidence(model: M4Model, evidence: NonNullable<SessionEvidence>): Evidence[] {
  return evidence.session ? sessionEvidenceOf(model, evidence.session) : vectorEvidenceOf(model, evidence.features)
}

/**
 * Modality evidence into one log-odds: every modality against the session
 * counts in full; of the modalities for it, only the strongest, and only
 * half of it when another modality is against. Bots often script one
 * modality well (human-like typing, a replayed scroll), so human evidence
 * in one may not excuse bot evidence in another. Adding a natural modality
 * still never lowers the score: it can only raise the strongest positive.
 */
export function combine(evs: readonly Evidence[]): number {
  let against = 0
  let best = 0
  for (const e of evs) {
    if (e.z < 0) against += e.z
    else best = Math.max(best, e.z)
  }
  return against + (against < 0 ? best / 2 : best)
}

/** the combined evidence capped by every failed check, the verdict and the reasons */
export function judgeEvidence(model: M4Model, evidence: SessionEvidence, thresholds?: VerdictThresholds): ScoreResult {
  if (!evidence)
    return { hcs: 0, m3_score: 0, verdict: 'insufficient_data', reasons: ['invalid_features'], model_version: model.model_version }
  const { findings } = evidence
  const all = modalityEvidence(model, evidence)
  // Wheel ticks alone verify nobody: a script's page.mouse.wheel with random sleeps gives what a hand's
  // notches give (identical steps, an uneven rhythm; Chromium 20 of 20 human_verified), and no recording of
  // people scrolling exists to tell them apart. Scroll alone counts only against a session (a steady rhythm).
  const evs = all.every((e) => e.modality === 'scroll' && e.z >= 0) ? [] : all
  const z = combine(evs)
  const m3 = evs.length ? sigmoid(z) : 0.5
  const hcs = Math.round(Math.min(m3 * 100, ...findings.map((x) => x.cap)) * 10) / 10
  // A failed integrity check is evidence enough, however short the session.
  const enough = evs.length > 0 || findings.length > 0
  const verdict = verdictFor(hcs, enough, thresholds)
  const reasons = [...new Set(findings.map((x) => x.code))]
  // the log-odds a modality alone needs for human_verified under these thresholds (0.85 at the default 70)
  const humanAbove = (thresholds ?? DEFAULT_THRESHOLDS).humanAbove / 100
  const verifiedZ = Math.log(humanAbove / (1 - humanAbove))
  if (verdict === 'human_verified') {
    const natural = (e: Evidence) => e.z > 0 && !e.codes.length && NATURAL[e.modality] !== undefined
    for (const e of evs) if (natural(e) && (!e.explain || e.z >= verifiedZ)) reasons.push(NATURAL[e.modality]!)
    // hcs rounded up to the threshold: the modality that carried the session says so
    const best = reasons.length ? undefined : evs.filter(natural).sort((a, b) => b.z - a.z)[0]
    if (best) reasons.push(NATURAL[best.modality]!)
  } else {
    // most damning modality first; the trees explain every modality short of human_verified
    for (const e of [...evs].sort((a, b) => a.z - b.z))
      for (const c of e.explain && e.z < verifiedZ ? [...e.codes, ...e.explain()] : e.codes) if (!reasons.includes(c)) reasons.push(c)
  }
  if (!enough) reasons.push('insufficient_interaction')
  // nothing looks automated and the evidence leans human, but not as far as the organization's own threshold
  // (typing alone counts for at most hcs 86): never under the default thresholds
  else if (!reasons.length && verdict !== 'human_verified' && evs.some((e) => e.z > 0)) reasons.push('evidence_short_of_threshold')
  else if (!reasons.length) reasons.push('low_model_score')
  return { hcs, m3_score: Math.round(m3 * 1e4) / 1e4, verdict, reasons, model_version: model.model_version }
}

/** a vector from outside (demo, server-side batch): sanity only */
function foreignEvidence(features: readonly number[], extra: readonly Finding[]): SessionEvidence {
  if (!isFeatureVector(features)) return null
  const sanity = featureSanity(features)
  // Clamped, so the rules and trees see only what the extractor could have produced.
  return { features: features.map(clampFeature), session: null, findings: sanity ? [sanity, ...extra] : [...extra] }
}

/** everything scoreSession checks, without the model (evaluation scores it with other models) */
export function sessionEvidence(input: SessionScoreInput): SessionEvidence {
  const { signals, clientFeatures, replayed, reused } = input
  const extra = [...(replayed ? [REPLAYED] : []), ...(reused?.strokes ? [REUSED_STROKES] : []), ...(reused?.typing ? [REUSED_TYPING] : [])]
  if (signals.length === 0) {
    const untrusted = isFeatureVector(clientFeatures) ? untrustedVectorFinding(clientFeatures[F.untrusted_share]) : undefined
    return foreignEvidence(clientFeatures, untrusted ? [untrusted, ...extra] : extra)
  }
  const features = windowFeatures(signals)
  const mismatch = featureMismatch(clientFeatures, features, signals.length)
  // the model's features read each modality over its own window (session-features.ts)
  return { features, session: sessionFeatures(signals), findings: [...(mismatch ? [mismatch] : []), ...signalFindings(signals), ...extra] }
}

/** scoreSession with another model (the held-out models of `npm run eval`); ingest uses scoreSession */
export function scoreSessionWith(model: M4Model, input: SessionScoreInput, thresholds?: VerdictThresholds): ScoreResult {
  return judgeEvidence(model, sessionEvidence(input), thresholds)
}

export function scoreFeatures(features: readonly number[]): ScoreResult {
  return judgeEvidence(MODEL, foreignEvidence(features, []))
}

/** thresholds: the organization's, when it set its own (hcs is the same either way) */
export function scoreSession(input: SessionScoreInput, thresholds?: VerdictThresholds): ScoreResult {
  return scoreSessionWith(MODEL, input, thresholds)
}
