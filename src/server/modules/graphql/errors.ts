import { GraphQLError } from 'graphql'
import type { ErrorDetail } from '../../platform/errors'
import type { Role } from '../../platform/access-token'
import type { GraphQLContext } from './types'

/** The contract's GraphQL error codes, plus the two no client input can trigger on purpose. */
export type GraphQLErrorCode = 'UNAUTHENTICATED' | 'FORBIDDEN' | 'BAD_USER_INPUT' | 'NOT_FOUND' | 'UNAVAILABLE' | 'INTERNAL_SERVER_ERROR'

export function gqlError(code: GraphQLErrorCode, message: string, details?: ErrorDetail[]): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...(details && details.length ? { details } : {}) } })
}

export const notFound = (what: string) => gqlError('NOT_FOUND', `${what} not found`)

export function badUserInput(details: ErrorDetail[]): GraphQLError {
  const first = details[0]
  return gqlError('BAD_USER_INPUT', first ? `${first.path}: ${first.message}` : 'invalid input', details)
}

/** Role gate for mutations; the role is read fresh from memberships by the resolver, not trusted from the token. */
export function requireRole(context: GraphQLContext, roles: readonly Role[]): void {
  if (!context.principal.role || !roles.includes(context.principal.role)) {
    throw gqlError('FORBIDDEN', `this action needs the role ${roles.join(' or ')}`)
  }
}
