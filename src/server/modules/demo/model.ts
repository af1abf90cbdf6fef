import * as v from 'valibot'
import { FEATURE_COUNT } from '../../platform/contract'

export const LiveScoreBody = v.object({
  // Length first: an array of 100,000 bad elements must cost one issue, not 100,000.
  features: v.pipe(
    v.array(v.unknown(), 'features must be an array of numbers'),
    v.length(FEATURE_COUNT, `features must have ${FEATURE_COUNT} numbers`),
    v.array(v.pipe(v.number('each feature must be a number'), v.finite('each feature must be a finite number')))
  ),
})

export const LiveScoreSchema = v.object({
  hcs: v.pipe(v.number(), v.minValue(0), v.maxValue(100), v.description('Human-confidence score, one decimal.')),
  m3_score: v.pipe(v.number(), v.minValue(0), v.maxValue(1), v.description('The M3 model’s probability of a human, four decimals.')),
  verdict: v.picklist(['human_verified', 'suspicious', 'bot', 'insufficient_data']),
  model_version: v.string(),
})
