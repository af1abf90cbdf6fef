import { Elysia } from 'elysia'
import type { Logger } from '../platform/log'
import { requestMeta } from './context'

// The first GraphQL error code of a request's answer, noted by the GraphQL module (its HTTP status alone
// says little: a FORBIDDEN or NOT_FOUND resolver error is a 200).
const graphqlCodes = new WeakMap<Request, string>()

export function noteGraphQLCode(request: Request, code: string) {
  if (!graphqlCodes.has(request)) graphqlCodes.set(request, code)
}

/**
 * A GraphQL error answered before or instead of Yoga (credential, rate limit, outage, Idempotency-Key):
 * GraphQL's body shape with the contract's code, noted for the access log.
 */
export function graphqlErrorResponse(
  request: Request,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {}
): Response {
  noteGraphQLCode(request, code)
  return new Response(JSON.stringify({ errors: [{ message, extensions: { code } }] }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  })
}

/**
 * The status that went out: a handler that returns its own Response (GraphQL, pages) sets it there,
 * not in `set.status`, which then still reads 200.
 */
function sentStatus(response: unknown, set: { status?: number | string }): number {
  if (response instanceof Response) return response.status
  return typeof set.status === 'number' ? set.status : 200
}

/** One line per request once the response is out: id, route, status, duration, organization, GraphQL code. */
export function accessLog(log: Logger) {
  return new Elysia({ name: 'http-access-log' }).onAfterResponse({ as: 'global' }, ({ request, set, path, route, responseValue }) => {
    const m = requestMeta(request)
    if (!m) return
    const code = graphqlCodes.get(request)
    log.info('request', {
      request_id: m.id,
      method: request.method,
      route: route || path,
      status: sentStatus(responseValue, set),
      duration_ms: Math.round((performance.now() - m.start) * 100) / 100,
      ...(m.orgId ? { org_id: m.orgId } : {}),
      ...(code ? { graphql_code: code } : {}),
    })
  })
}
