import * as v from 'valibot'
import { pageSize } from '../graphql'

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
  first: pageSize(50, MAX_HISTORY),
})
