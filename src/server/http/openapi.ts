import { type ConversionConfig, toJsonSchema } from '@valibot/to-json-schema'
import type { GenericSchema } from 'valibot'
import * as v from 'valibot'
import { API_VERSION } from '../platform/contract'
import { ERROR_STATUS } from '../platform/errors'
import { bodyMediaTypes } from './body'

/**
 * The OpenAPI 3.1 document, built from the composed app's routes: paths, parameters and request bodies
 * come from the routes' own valibot schemas (the ones that validate), responses, summaries and
 * operationIds from each route's `detail`, security from its `auth` option. A route without an
 * operationId or responses still appears, so the validator test catches it instead of it vanishing.
 */

export type Json = Record<string, any>

const CONVERSION: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'input',
  errorMode: 'ignore',
  // JSON Schema patterns have no flags: a case-insensitive regex (UUIDs) must spell both cases out.
  overrideAction: ({ valibotAction, jsonSchema }) => {
    const action = valibotAction as { type: string; requirement?: unknown }
    if (action.type === 'regex' && action.requirement instanceof RegExp && action.requirement.flags.includes('i'))
      return { ...jsonSchema, pattern: caseInsensitivePattern(action.requirement.source) }
    return undefined
  },
}

/** `[0-9a-f]` → `[0-9a-fA-F]`: enough for the class-based patterns used here (UUIDs, hex). */
export function caseInsensitivePattern(source: string): string {
  return source.replace(/\[([^\]]*)\]/g, (_, body: string) => {
    const extra = [...body.matchAll(/([a-z])-([a-z])/g)].map((m) => `${m[1]!.toUpperCase()}-${m[2]!.toUpperCase()}`)
    return `[${body}${extra.join('')}]`
  })
}

export function jsonSchemaOf(schema: GenericSchema): Json {
  const { $schema: _, ...rest } = toJsonSchema(schema, CONVERSION) as Json
  return rest
}

// Named schemas: a route refers to one by `component(name, schema)`; the document lists those in use.
const components = new Map<string, Json>()

/** A reusable `components.schemas` entry; returns its `$ref`. A second definition under one name is a bug. */
export function component(name: string, schema: GenericSchema | Json, example?: unknown): { $ref: string } {
  const json = '~standard' in schema ? jsonSchemaOf(schema as GenericSchema) : (schema as Json)
  const value = example === undefined ? json : { ...json, examples: [example] }
  const known = components.get(name)
  if (known && JSON.stringify(known) !== JSON.stringify(value)) throw new Error(`OpenAPI component ${name} defined twice`)
  components.set(name, value)
  return { $ref: `#/components/schemas/${name}` }
}

export const ErrorEnvelope = component(
  'ErrorEnvelope',
  v.object({
    error: v.object({
      code: v.picklist(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS, ...(keyof typeof ERROR_STATUS)[]]),
      message: v.string(),
      details: v.optional(v.array(v.object({ path: v.string(), message: v.string() }))),
      request_id: v.string(),
    }),
  }),
  {
    error: {
      code: 'validation_failed',
      message: 'features: expected length 34',
      details: [{ path: 'features', message: 'expected length 34' }],
      request_id: '7f9c2b1e-2f1d-4c55-9d0e-3a8b6c1d2e3f',
    },
  }
)

const retryAfter = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } } }

/** The error answers (API.md, "Errors"), one reusable response per status. */
const ERROR_RESPONSES: Record<number, { name: string; description: string; codes: string[]; headers?: Json }> = {
  400: {
    name: 'BadRequest',
    description: 'Body not JSON, or body/params fail the schema (`details[]` names each field).',
    codes: ['invalid_json', 'validation_failed'],
  },
  401: { name: 'Unauthorized', description: 'Credential missing, malformed, unknown, revoked or expired.', codes: ['unauthorized'] },
  403: {
    name: 'Forbidden',
    description: 'Credential valid but not allowed here (e.g. a public key, or a key used from a non-allowed origin).',
    codes: ['forbidden'],
  },
  404: { name: 'NotFound', description: 'Absent, or belongs to another organization (never said which).', codes: ['not_found'] },
  409: { name: 'Conflict', description: 'The request conflicts with the resource state (the message says which).', codes: ['conflict'] },
  413: { name: 'PayloadTooLarge', description: 'Body over the size limit.', codes: ['payload_too_large'] },
  415: { name: 'UnsupportedMediaType', description: 'Body not sent as `application/json`.', codes: ['unsupported_media_type'] },
  429: {
    name: 'TooManyRequests',
    description: 'Rate limit, or the monthly plan limit, reached.',
    codes: ['rate_limited', 'plan_limit_exceeded'],
    headers: retryAfter,
  },
  500: { name: 'InternalError', description: 'A bug; the message is generic, details are in the server log.', codes: ['internal'] },
  503: {
    name: 'Unavailable',
    description:
      'The database is unreachable, or this instance is working on as many requests as it takes (`MAX_IN_FLIGHT`); retry after `Retry-After`.',
    codes: ['unavailable'],
    headers: retryAfter,
  },
}

/** `{ 401: {$ref}, … }` for a route's error statuses; every route may also answer 500. */
export function errors(...statuses: (keyof typeof ERROR_RESPONSES)[]): Json {
  const out: Json = {}
  for (const status of [...statuses, 500].sort()) out[status] = { $ref: `#/components/responses/${ERROR_RESPONSES[status]!.name}` }
  return out
}

/** A JSON request body documented from its valibot schema, with an example (the route's `detail.requestBody`). */
export function jsonBody(schema: GenericSchema, example: unknown): { content: Json; required: boolean } {
  return { required: true, content: { 'application/json': { schema: jsonSchemaOf(schema), example } } }
}

/** A JSON success response. */
export function ok(description: string, schema: Json, headers?: Json): { description: string } & Json {
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema } } }
}

export const SECURITY_SCHEMES = {
  ApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'A secret key (`svc_live_sk_…`, server side only) or, where stated, a public key (`svc_live_pk_…`, browser SDK).',
  },
  BeaconKey: {
    type: 'apiKey',
    in: 'query',
    name: 'key',
    description: 'A *public* key in the URL, for `navigator.sendBeacon` (which cannot set headers). Secret keys are never accepted here.',
  },
  BearerJWT: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Dashboard access token from `POST /auth/verify-otp` or `/auth/refresh`.',
  },
} as const

/** The `security` of a route that accepts these credentials (the credential plugin's `auth` option). */
export function securityFor(accepted: readonly string[]): { [scheme: string]: string[] }[] {
  const out: { [scheme: string]: string[] }[] = []
  if (accepted.includes('public') || accepted.includes('secret')) out.push({ ApiKey: [] })
  // Only routes that take a public key read `?key=` (the sendBeacon path).
  if (accepted.includes('public')) out.push({ BeaconKey: [] })
  if (accepted.includes('jwt')) out.push({ BearerJWT: [] })
  return out
}

type Route = { method: string; path: string; hooks: Record<string, any> }

function parametersOf(hooks: Route['hooks'], path: string): Json[] {
  const params: Json[] = []
  const from = (schema: unknown, where: 'path' | 'query') => {
    if (!schema || !(schema as Json)['~standard']) return
    const json = jsonSchemaOf(schema as GenericSchema)
    for (const [name, s] of Object.entries<Json>(json.properties ?? {}))
      params.push({ name, in: where, required: where === 'path' || (json.required ?? []).includes(name), schema: s })
  }
  from(hooks.params, 'path')
  from(hooks.query, 'query')
  // Path parameters without a schema are still parameters.
  for (const m of path.matchAll(/:([^/]+)/g))
    if (!params.some((p) => p.in === 'path' && p.name === m[1]))
      params.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } })
  return params
}

/** Collects every `#/components/<kind>/<name>` a JSON value mentions. */
function refsIn(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsIn(item, out)
  else if (value && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') out.add(item)
      else refsIn(item, out)
    }
  return out
}

export type DocumentInfo = {
  title: string
  description: string
  externalDocs?: Json
  tags: { name: string; description: string }[]
  /** The POST paths that take no `Idempotency-Key` (they have their own retry rule). */
  idempotencyExempt: readonly string[]
}

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry: for 24 hours the same key with the same body returns the first 2xx answer again (with `Idempotent-Replayed: true`); the same key with another body is a `409 conflict`. Scoped to the credential’s organization, else the client IP. On `/graphql`, only requests holding a mutation.',
  schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
}

export function openApiDocument(routes: readonly Route[], info: DocumentInfo): Json {
  const paths: Json = {}
  for (const route of routes) {
    const method = route.method.toLowerCase()
    const detail = (route.hooks.detail ?? {}) as Json
    if (detail.hide || method === 'options' || method === 'all') continue
    const path = route.path.replace(/:([^/]+)/g, '{$1}')
    const operation: Json = {
      ...(detail.tags ? { tags: detail.tags } : {}),
      ...(detail.summary ? { summary: detail.summary } : {}),
      ...(detail.description ? { description: detail.description } : {}),
      ...(detail.operationId ? { operationId: detail.operationId } : {}),
      ...(detail.externalDocs ? { externalDocs: detail.externalDocs } : {}),
    }
    const parameters = [...parametersOf(route.hooks, route.path), ...(detail.parameters ?? [])]
    if (method === 'post' && !info.idempotencyExempt.includes(route.path))
      parameters.push({ $ref: '#/components/parameters/IdempotencyKey' })
    if (parameters.length) operation.parameters = parameters
    const body = route.hooks.body as GenericSchema | undefined
    if (detail.requestBody) operation.requestBody = detail.requestBody
    else if (body?.['~standard']) {
      const schema = jsonSchemaOf(body)
      const content = Object.fromEntries(bodyMediaTypes(route.hooks).map((type) => [type, { schema }]))
      operation.requestBody = { required: true, content }
    }
    if (detail.responses) operation.responses = detail.responses
    // No security stated: the route takes no credential (the `auth` option states it for the others).
    operation.security = detail.security ?? []
    paths[path] ??= {}
    paths[path][method] = operation
  }

  const responses: Json = {}
  for (const { name, description, codes, headers } of Object.values(ERROR_RESPONSES))
    responses[name] = {
      description,
      ...(headers ? { headers } : {}),
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/ErrorEnvelope' },
          example: { error: { code: codes[0], message: description, request_id: '7f9c2b1e-2f1d-4c55-9d0e-3a8b6c1d2e3f' } },
        },
      },
    }
  const used = refsIn({ paths, responses })
  // Components may refer to each other: close over the references.
  const schemas: Json = {}
  let grew = true
  while (grew) {
    grew = false
    for (const ref of used) {
      const name = ref.replace('#/components/schemas/', '')
      if (ref.startsWith('#/components/schemas/') && !schemas[name] && components.has(name)) {
        schemas[name] = components.get(name)
        refsIn(schemas[name], used)
        grew = true
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: API_VERSION,
      description: info.description,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    ...(info.externalDocs ? { externalDocs: info.externalDocs } : {}),
    // Relative: the document is served by the API itself, so the server is whichever host served it.
    servers: [{ url: '/', description: 'This server' }],
    tags: info.tags,
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      responses: Object.fromEntries(Object.entries(responses).filter(([name]) => used.has(`#/components/responses/${name}`))),
      parameters: { IdempotencyKey: IDEMPOTENCY_KEY },
      securitySchemes: SECURITY_SCHEMES,
    },
  }
}
