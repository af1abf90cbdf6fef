import * as v from 'valibot'

export const FEATURE_COUNT = 34

export const LiveScoreBody = v.object({
  features: v.pipe(
    v.array(v.pipe(v.number('each feature must be a number'), v.finite('each feature must be a finite number')), 'features must be an array of numbers'),
    v.length(FEATURE_COUNT, `features must have ${FEATURE_COUNT} numbers`)
  ),
})
