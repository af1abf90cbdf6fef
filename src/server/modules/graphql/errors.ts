import { GraphQLError } from 'graphql'
import type { Role } from '../../platform/access-token'
import { ApiError, type ErrorCode, isDatabaseUnavailable } from '../../platform/errors'
import type { GraphQLContext } from './types'

/** The contract's GraphQL error codes, plus the ones no client input can trigger on purpose. */
export type GraphQLErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'BAD_USER_INPUT'
  | 'NOT_FOUND'
  | 'RATE_LIMITED'
  | 'UNAVAILABLE'
  | 'INTERNAL_SERVER_ERROR'

export const GRAPHQL_CODES: ReadonlySet<string> = new Set<GraphQLErrorCode>([
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'BAD_USER_INPUT',
  'NOT_FOUND',
  'RATE_LIMITED',
  'UNAVAILABLE',
  'INTERNAL_SERVER_ERROR',
])

/**
 * The one mapping from the REST error codes to GraphQL's: resolvers throw the same ApiError as
 * REST handlers, and it leaves /graphql with this code (and the same message and details).
 */
const FROM_API_CODE: Record<ErrorCode, GraphQLErrorCode> = {
  invalid_json: 'BAD_USER_INPUT',
  validation_failed: 'BAD_USER_INPUT',
  conflict: 'BAD_USER_INPUT',
  payload_too_large: 'BAD_USER_INPUT',
  unsupported_media_type: 'BAD_USER_INPUT',
  unauthorized: 'UNAUTHENTICATED',
  invalid_credentials: 'UNAUTHENTICATED',
  invalid_otp: 'UNAUTHENTICATED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'BAD_USER_INPUT',
  rate_limited: 'RATE_LIMITED',
  plan_limit_exceeded: 'RATE_LIMITED',
  internal: 'INTERNAL_SERVER_ERROR',
  unavailable: 'UNAVAILABLE',
}

export const graphqlCode = (error: ApiError): GraphQLErrorCode => FROM_API_CODE[error.code]

function rootCause(error: unknown): unknown {
  let e = error
  while (e instanceof GraphQLError && e.originalError) e = e.originalError
  return e
}

function isOriginalGraphQLError(error: unknown): boolean {
  if (!(error instanceof GraphQLError)) return false
  return error.originalError == null || isOriginalGraphQLError(error.originalError)
}

/**
 * Yoga's maskError: an ApiError becomes its GraphQL code with its message and details; the database
 * being down is UNAVAILABLE (HTTP 503); anything else unexpected never shows its message, stack or
 * SQL (even in development) — it goes to the server log.
 */
export function toGraphQLError(error: unknown, message: string): Error {
  if (isOriginalGraphQLError(error)) return error as GraphQLError
  const located =
    error instanceof GraphQLError ? { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path } : {}
  const cause = rootCause(error)
  if (cause instanceof ApiError) {
    const details = cause.details?.length ? { details: cause.details } : {}
    return new GraphQLError(cause.message, { ...located, extensions: { code: graphqlCode(cause), ...details } })
  }
  if (isDatabaseUnavailable(cause)) {
    return new GraphQLError('the service is temporarily unavailable, retry later', {
      ...located,
      extensions: { code: 'UNAVAILABLE', http: { status: 503, headers: { 'retry-after': '5' } } },
    })
  }
  return new GraphQLError(message, { ...located, extensions: { code: 'INTERNAL_SERVER_ERROR' } })
}

export { rootCause }

/** Role gate for mutations; the role is read fresh from memberships by the resolver, not trusted from the token. */
export function requireRole(context: GraphQLContext, roles: readonly Role[]): void {
  if (!context.principal.role || !roles.includes(context.principal.role)) {
    throw new ApiError('forbidden', `this action needs the role ${roles.join(' or ')}`)
  }
}
