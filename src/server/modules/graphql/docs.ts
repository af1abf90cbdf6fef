import type { DocumentDecoration } from 'elysia/types'
import * as v from 'valibot'
import { component, type Json } from '../../http/openapi'
import { GRAPHQL_CODES } from './errors'

// POST /graphql in the OpenAPI document: the request and answer envelopes; the types are in the SDL.

const GraphQLRequest = component(
  'GraphQLRequest',
  v.object({
    query: v.pipe(v.string(), v.description('The GraphQL document.')),
    variables: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
    operationName: v.optional(v.nullable(v.string())),
  }),
  { query: 'query { getPlanUsage { planId sessionsUsed sessionsLimit percentUsed } }' }
)

const GraphQLResponse = component(
  'GraphQLResponse',
  v.object({
    data: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
    errors: v.optional(
      v.array(
        v.object({
          message: v.string(),
          path: v.optional(v.array(v.union([v.string(), v.number()]))),
          extensions: v.object({ code: v.picklist([...GRAPHQL_CODES] as [string, ...string[]]), details: v.optional(v.unknown()) }),
        })
      )
    ),
  }),
  { data: { getPlanUsage: { planId: 'free', sessionsUsed: 412, sessionsLimit: 1000, percentUsed: 41.2 } } }
)

const answer = (description: string, example: unknown, headers?: Json): { description: string } & Json => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: GraphQLResponse, example } },
})
const error = (code: string, message: string) => ({ errors: [{ message, extensions: { code } }] })
const retryAfter = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } } }

export const GRAPHQL_DOC: DocumentDecoration = {
  operationId: 'graphql',
  summary: 'GraphQL (dashboard)',
  description:
    'Standard GraphQL over HTTP, dashboard JWT only. Errors carry `extensions.code` (`UNAUTHENTICATED`, `FORBIDDEN`, `BAD_USER_INPUT`, `NOT_FOUND`, `RATE_LIMITED`, `UNAVAILABLE`, …). The schema: [`GET /graphql/schema.graphql`](/graphql/schema.graphql).',
  tags: ['GraphQL'],
  externalDocs: { description: 'The schema as SDL', url: '/graphql/schema.graphql' },
  security: [{ BearerJWT: [] }],
  requestBody: { required: true, content: { 'application/json': { schema: GraphQLRequest } } },
  responses: {
    200: answer('Executed; resolver errors (e.g. `FORBIDDEN`, `NOT_FOUND`) come in `errors` beside `data`.', {
      data: { getPlanUsage: { planId: 'free', sessionsUsed: 412, sessionsLimit: 1000, percentUsed: 41.2 } },
    }),
    400: answer(
      'Refused before execution: not JSON, syntax, validation, or query limits.',
      error('BAD_USER_INPUT', 'Syntax Error: Unexpected <EOF>.')
    ),
    401: answer('No JWT, a bad one, or an API key.', error('UNAUTHENTICATED', 'missing credential')),
    413: answer('Body over 64 KiB.', error('BAD_USER_INPUT', 'request body too large')),
    415: answer('Not `application/json`.', error('BAD_USER_INPUT', 'send the request as Content-Type: application/json')),
    429: answer('Per-user or per-organization rate limit.', error('RATE_LIMITED', 'too many requests, retry later'), retryAfter),
    500: answer('A bug; details are in the server log.', error('INTERNAL_SERVER_ERROR', 'internal error')),
    503: answer(
      'The database is unreachable, or this instance is at `MAX_IN_FLIGHT` (load shedding).',
      error('UNAVAILABLE', 'the service is temporarily unavailable, retry later'),
      retryAfter
    ),
  },
}
