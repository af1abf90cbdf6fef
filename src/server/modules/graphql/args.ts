import * as v from 'valibot'
import { ApiError, issuesToDetails } from '../../platform/errors'

/** A resolver's arguments through its valibot schema; a failure is BAD_USER_INPUT naming the first bad field. */
export function parseArgs<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, input)
  if (!result.success) {
    const details = issuesToDetails(result.issues as unknown as Parameters<typeof issuesToDetails>[0])
    throw new ApiError('validation_failed', details[0] ? `${details[0].path}: ${details[0].message}` : 'invalid input', details)
  }
  return result.output
}

/** A page size argument: null or absent → fallback; otherwise a whole number from 1 to max. */
export function pageSize(fallback: number, max: number) {
  return v.pipe(
    v.optional(v.nullable(v.number()), fallback),
    v.transform((n) => n ?? fallback),
    v.integer('must be a whole number'),
    v.minValue(1, 'must be at least 1'),
    v.maxValue(max, `must be at most ${max}`)
  )
}
