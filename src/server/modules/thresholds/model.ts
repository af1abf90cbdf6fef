import * as v from 'valibot'

const threshold = (name: string) =>
  v.pipe(
    v.number(`${name} must be a number`),
    v.finite('must be a finite number'),
    v.gtValue(0, 'must be more than 0'),
    v.ltValue(100, 'must be less than 100')
  )

/** 0 < botBelow ≤ humanAbove < 100 (API.md). */
export const SetThresholdsInput = v.pipe(
  v.object({ botBelow: threshold('botBelow'), humanAbove: threshold('humanAbove') }),
  v.forward(
    v.check((t) => t.botBelow <= t.humanAbove, 'must not be more than humanAbove'),
    ['botBelow']
  )
)

export const MAX_HISTORY = 100
export const HistoryInput = v.object({
  first: v.pipe(
    v.optional(v.nullable(v.number()), 50),
    v.transform((n) => n ?? 50),
    v.integer('must be a whole number'),
    v.minValue(1, 'must be at least 1'),
    v.maxValue(MAX_HISTORY, `must be at most ${MAX_HISTORY}`)
  ),
})
