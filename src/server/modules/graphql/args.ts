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
