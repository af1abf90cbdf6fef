import { describe, expect, it } from 'bun:test'
import { GraphQLError } from 'graphql'
import { toGraphQLError } from '../../src/server/modules/graphql/errors'
import { ApiError, ERROR_STATUS, type ErrorCode } from '../../src/server/platform/errors'

// Resolvers throw the REST ApiError; one table turns its code into the GraphQL one (graphql-js wraps the throw).
const thrownInResolver = (error: Error) => new GraphQLError(error.message, { originalError: error, path: ['field'] })
const ext = (e: Error) => (e as GraphQLError).extensions

describe('ApiError → GraphQL error', () => {
  it('maps the codes a resolver throws, keeping message and details', () => {
    const cases: [ErrorCode, string][] = [
      ['not_found', 'NOT_FOUND'],
      ['forbidden', 'FORBIDDEN'],
      ['unauthorized', 'UNAUTHENTICATED'],
      ['validation_failed', 'BAD_USER_INPUT'],
      ['conflict', 'BAD_USER_INPUT'],
      ['rate_limited', 'RATE_LIMITED'],
      ['unavailable', 'UNAVAILABLE'],
    ]
    for (const [code, graphql] of cases) {
      const out = toGraphQLError(thrownInResolver(new ApiError(code, `msg ${code}`)), 'internal error')
      expect(out.message).toBe(`msg ${code}`)
      expect(ext(out).code).toBe(graphql)
      expect((out as GraphQLError).path).toEqual(['field'])
    }
    const details = [{ path: 'keyPairId', message: 'must be a UUID' }]
    const out = toGraphQLError(thrownInResolver(new ApiError('validation_failed', 'keyPairId: must be a UUID', details)), 'internal error')
    expect(ext(out)).toEqual({ code: 'BAD_USER_INPUT', details })
  })

  it('has a GraphQL code for every REST error code', () => {
    for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
      expect(ext(toGraphQLError(thrownInResolver(new ApiError(code, 'x')), 'internal error')).code).toBeString()
    }
  })

  it('masks anything else, and reports a database outage as UNAVAILABLE (503)', () => {
    const leak = toGraphQLError(thrownInResolver(new Error('relation "users" does not exist')), 'internal error')
    expect(leak.message).toBe('internal error')
    expect(ext(leak)).toEqual({ code: 'INTERNAL_SERVER_ERROR' })
    const down = toGraphQLError(thrownInResolver(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })), 'x')
    expect(ext(down)).toMatchObject({ code: 'UNAVAILABLE', http: { status: 503 } })
  })
})
