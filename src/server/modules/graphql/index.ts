import { Elysia } from 'elysia'
import { GraphQLError, printSchema } from 'graphql'
import { createSchema, createYoga, type Plugin, type YogaLogger } from 'graphql-yoga'
import { graphqlErrorResponse, noteGraphQLCode } from '../../http/access-log'
import { bodyOptions } from '../../http/body'
import { requestId, tagOrg } from '../../http/context'
import { errors as restErrors } from '../../http/openapi'
import type { Config } from '../../platform/config'
import { ApiError, isDatabaseUnavailable } from '../../platform/errors'
import { mediaType } from '../../platform/http'
import type { Logger } from '../../platform/log'
import { rateLimitHeaders } from '../../platform/ratelimit'
import type { Credentials, Principal } from '../../plugins/auth'
import type { RateLimits } from '../../plugins/ratelimit'
import { GRAPHQL_DOC } from './docs'
import { GRAPHQL_CODES, requireRole, rootCause, toGraphQLError } from './errors'
import { DEFAULT_LIMITS, type QueryLimits, useQueryLimits, useResponseSizeLimit } from './limits'
import type { GraphQLContext, GraphQLPart } from './types'

export type { GraphQLContext, GraphQLPart } from './types'
export { requireRole }
export { pageSize, parseArgs } from './args'
export { chargeListItems, DEFAULT_LIMITS, type QueryLimits } from './limits'

/** Requests are bodies of one query plus variables; anything bigger is not a dashboard call. */
const MAX_BODY_BYTES = 64 * 1024

function yogaLogger(log: Logger): YogaLogger {
  const causeOf = (args: unknown[]) => {
    const error = args.find((a): a is Error => a instanceof Error)
    return error ? rootCause(error) : undefined
  }
  const describe = (args: unknown[]) => {
    const cause = causeOf(args)
    return {
      detail: args.map((a) => (a instanceof Error ? a.message : String(a))).join(' '),
      ...(cause instanceof Error ? { cause: cause.message, stack: cause.stack } : {}),
    }
  }
  return {
    debug: () => {},
    info: () => {},
    warn: (...args: unknown[]) => log.warn('graphql', describe(args)),
    error: (...args: unknown[]) => {
      // Yoga reports every error that is not a GraphQLError, a client's mistake too (an ApiError such as
      // validation_failed, answered with its own code and in the access log): not an operator's concern,
      // and at error level with a stack it would page someone for a typo in an origin list.
      const cause = causeOf(args)
      if (cause instanceof ApiError && cause.status < 500) return
      log.error('graphql unexpected error', describe(args))
    },
  }
}

/** Gives every error a contract code and keeps only code/details in extensions (no originalError, no internals). */
function useContractErrorCodes(): Plugin<object, { httpRequest?: Request }> {
  return {
    onResultProcess({ result, setResult, serverContext }) {
      const results = Array.isArray(result) ? result : [result]
      const rewritten = results.map((r) => {
        if (!r || typeof r !== 'object' || !('errors' in r) || !r.errors?.length) return r
        // No `data` means the request was refused before execution (bad JSON, syntax, validation, limits): HTTP 400.
        const refused = !('data' in r)
        const errors = r.errors.map((error) => {
          const ext = (error.extensions ?? {}) as Record<string, unknown>
          const code =
            typeof ext.code === 'string' && GRAPHQL_CODES.has(ext.code)
              ? ext.code
              : ext.unexpected
                ? 'INTERNAL_SERVER_ERROR'
                : 'BAD_USER_INPUT'
          const http = (ext.http ?? {}) as { status?: number; headers?: Record<string, string> }
          const status = refused && code === 'BAD_USER_INPUT' ? Math.max(http.status ?? 400, 400) : http.status
          return new GraphQLError(error.message, {
            nodes: error.nodes,
            source: error.source,
            positions: error.positions,
            path: error.path,
            extensions: {
              code,
              ...(ext.details ? { details: ext.details } : {}),
              ...(status || http.headers
                ? { http: { ...(status ? { status } : {}), ...(http.headers ? { headers: http.headers } : {}) } }
                : {}),
            },
          })
        })
        // For the access log: Yoga builds its own Response, and the code tells more than its status.
        if (serverContext.httpRequest) noteGraphQLCode(serverContext.httpRequest, errors[0]!.extensions.code as string)
        return { ...r, errors }
      })
      setResult((Array.isArray(result) ? rewritten : rewritten[0]) as typeof result)
    },
  }
}

/**
 * Media types are case-insensitive (RFC 9110) but Yoga matches `application/json` exactly: for
 * `APPLICATION/JSON` it answered an empty 415 without a GraphQL error. It gets the header lower-cased.
 */
function withLowerCaseContentType(request: Request): Request {
  const type = request.headers.get('content-type')
  if (!type || type === type.toLowerCase()) return request
  const headers = new Headers(request.headers)
  headers.set('content-type', type.toLowerCase())
  return new Request(request, { headers })
}

export function buildSchema(parts: GraphQLPart[]) {
  return createSchema<GraphQLContext>({
    typeDefs: parts.map((p) => p.typeDefs),
    resolvers: parts.map((p) => p.resolvers) as any,
  })
}

/**
 * POST /graphql, dashboard JWT only. The caller is authenticated before Yoga reads the body, so an
 * unauthenticated request costs no parsing or validation and always gets HTTP 401.
 */
export function graphqlModule({
  credentials,
  rateLimits,
  log,
  config,
  parts,
  limits = DEFAULT_LIMITS,
}: {
  credentials: Credentials
  rateLimits: RateLimits
  log: Logger
  config: Pick<Config, 'env' | 'rateLimits'>
  /** Every module's part (app.ts lists them), so this module imports no other. */
  parts: GraphQLPart[]
  limits?: QueryLimits
}) {
  const schema = buildSchema(parts)
  // The SDL of the very schema Yoga executes, linked from the OpenAPI document.
  const sdl = `${printSchema(schema)}\n`
  const yoga = createYoga<{ principal: Principal; httpRequest?: Request }, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: false,
    landingPage: false,
    multipart: false,
    cors: false,
    batching: false,
    maxRequestBodySize: MAX_BODY_BYTES,
    logging: yogaLogger(log),
    maskedErrors: { maskError: toGraphQLError, errorMessage: 'internal error' },
    context: ({ request, principal }) => ({ principal, request, listBudget: { used: 0, limit: limits.maxListItems } }),
    plugins: [
      useQueryLimits(limits, { introspection: config.env !== 'production' }),
      useResponseSizeLimit(limits),
      useContractErrorCodes(),
    ],
  })
  // Per dashboard user, and five times that per organization: a dashboard page makes a handful of calls.
  const rule = {
    scope: 'key',
    name: 'graphql',
    perMinute: config.rateLimits.graphqlPerMin,
    orgPerMinute: config.rateLimits.graphqlPerMin * 5,
  } as const

  return new Elysia({ name: 'graphql' })
    .use(bodyOptions)
    .get(
      '/graphql/schema.graphql',
      () => new Response(sdl, { headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'public, max-age=300' } }),
      {
        detail: {
          operationId: 'getGraphqlSchema',
          summary: 'The GraphQL schema (SDL)',
          description: 'The schema `POST /graphql` executes, as GraphQL SDL. Public: the same types are in the API contract.',
          tags: ['GraphQL'],
          security: [],
          responses: { 200: { description: 'The SDL.', content: { 'text/plain': { schema: { type: 'string' } } } }, ...restErrors() },
        },
      }
    )
    .post(
      '/graphql',
      async ({ request }) => {
        let principal: Principal
        try {
          principal = await credentials.resolve(request, { accepted: ['jwt'] })
        } catch (error) {
          if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
            // A key where a JWT belongs is a 403 in REST; the contract makes every refused credential 401 UNAUTHENTICATED here.
            return graphqlErrorResponse(request, 401, 'UNAUTHENTICATED', error.message, { 'www-authenticate': 'Bearer' })
          }
          // The membership lookup runs before Yoga: an outage here must still be a GraphQL answer.
          if (isDatabaseUnavailable(error) || (error instanceof ApiError && error.code === 'unavailable')) {
            log.warn('database unavailable', { request_id: requestId(request), error: String((error as Error)?.message ?? error) })
            return graphqlErrorResponse(request, 503, 'UNAVAILABLE', 'the service is temporarily unavailable, retry later', {
              'retry-after': '5',
            })
          }
          throw error
        }
        tagOrg(request, principal.orgId)
        const decision = await rateLimits.principal(principal, rule)
        const limitHeaders = rateLimitHeaders(decision)
        if (!decision.allowed) {
          return graphqlErrorResponse(request, 429, 'RATE_LIMITED', 'too many requests, retry later', {
            ...limitHeaders,
            'retry-after': String(decision.retryAfterSeconds),
          })
        }
        const type = mediaType(request)
        if (type !== 'application/json' && type !== 'application/graphql+json') {
          return graphqlErrorResponse(request, 415, 'BAD_USER_INPUT', 'send the request as Content-Type: application/json', limitHeaders)
        }
        const response = await yoga.handleRequest(withLowerCaseContentType(request), { principal, httpRequest: request })
        for (const [name, value] of Object.entries(limitHeaders)) response.headers.set(name, value)
        return response
      },
      // Yoga reads the body itself.
      { rawBody: true, detail: GRAPHQL_DOC }
    )
}
