import type { GenericSchema } from 'valibot'
import { ApiError, issuesToDetails } from './errors'

/**
 * A valibot schema for a route's body, query or params. A failed validation throws the
 * contract's 400 validation_failed from inside the check, so Elysia never builds its own
 * ValidationError: outside production that error JSON-stringifies (indented) the whole input plus
 * every issue, and each valibot issue references the whole input again — one hostile 1 MiB body
 * cost seconds of CPU and gigabytes of memory. Everything else about the schema (output type,
 * OpenAPI document, use with v.parse) is unchanged.
 */
export function routeSchema<S extends GenericSchema>(schema: S): S {
  const standard = schema['~standard']
  return {
    ...schema,
    '~standard': {
      ...standard,
      validate(value: unknown) {
        const result = standard.validate(value)
        if ('then' in result) return result
        if (result.issues) {
          const details = issuesToDetails(result.issues)
          throw new ApiError(
            'validation_failed',
            details[0] ? `${details[0].path}: ${details[0].message}` : 'request failed validation',
            details
          )
        }
        return result
      },
    },
  }
}
