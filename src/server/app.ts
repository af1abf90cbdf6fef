import { openapi } from '@elysiajs/openapi'
import { toJsonSchema } from '@valibot/to-json-schema'
import { Elysia } from 'elysia'
import type { AppDeps } from './deps'
import { ApiError, errorBody, isDatabaseUnavailable, issuesToDetails, type ErrorCode } from './platform/errors'
import { mediaType, parseJson, readBodyLimited, requestIdFrom } from './platform/http'
import { lifecycle } from './platform/lifecycle'
import { authModule } from './modules/auth'
import { demoModule } from './modules/demo'
import { graphqlModule } from './modules/graphql'
import { healthModule } from './modules/health'
import { ingestModule } from './modules/ingest'
import { keysModule } from './modules/keys'
import { mailModule } from './modules/mail'
import { orgModule } from './modules/org'
import { webModule } from './modules/web'

export const API_VERSION = '1.0.0'

/** Paths whose POST may carry JSON in a text/plain body (navigator.sendBeacon cannot set headers). */
const TEXT_JSON_PATHS = new Set(['/v1/ingest'])
/** Paths that read their own body (GraphQL Yoga). */
const RAW_BODY_PATHS = new Set(['/graphql'])

type RequestMeta = { id: string; start: number; orgId?: string }
const meta = new WeakMap<Request, RequestMeta>()

/** Marks the organization a request acted for, so the access log can carry it. */
export function tagOrg(request: Request, orgId: string) {
  const m = meta.get(request)
  if (m) m.orgId = orgId
}

export function requestId(request: Request): string {
  return meta.get(request)?.id ?? 'unknown'
}

/** Request ids, body parsing, the error envelope and the access log: shared by every route. */
export function httpCore(deps: AppDeps) {
  const { log, config } = deps
  return new Elysia({ name: 'http-core' })
    .onRequest(({ request, set }) => {
      const id = requestIdFrom(request)
      meta.set(request, { id, start: performance.now() })
      set.headers['x-request-id'] = id
      set.headers['x-api-version'] = API_VERSION
      // Baseline for every response; HTML pages add their own Content-Security-Policy (web module).
      set.headers['x-content-type-options'] = 'nosniff'
      set.headers['x-frame-options'] = 'DENY'
      set.headers['referrer-policy'] = 'no-referrer'
      if (lifecycle.draining) set.headers['connection'] = 'close'
    })
    .onParse({ as: 'global' }, async ({ request, path }) => {
      if (RAW_BODY_PATHS.has(path) || request.method === 'OPTIONS') return
      const type = mediaType(request)
      const textAllowed = TEXT_JSON_PATHS.has(path) && type === 'text/plain'
      if (type !== 'application/json' && !type.endsWith('+json') && !textAllowed) {
        throw new ApiError('unsupported_media_type', 'send the body as Content-Type: application/json')
      }
      const text = await readBodyLimited(request, config.bodyLimitBytes)
      return parseJson(text)
    })
    .onError({ as: 'global' }, ({ code, error: thrown, request, set, path }) => {
      let error: unknown = thrown
      const id = requestId(request)
      const reply = (status: number, code: ErrorCode, message: string, details?: { path: string; message: string }[], headers?: Record<string, string>) => {
        set.status = status
        set.headers['content-type'] = 'application/json'
        set.headers['x-request-id'] = id
        set.headers['x-api-version'] = API_VERSION
        if (headers) Object.assign(set.headers, headers)
        return errorBody(code, message, id, details)
      }
      // Errors thrown while parsing arrive wrapped in Elysia's ParseError.
      const cause = code === 'PARSE' ? (error as Error).cause : undefined
      if (cause instanceof ApiError) error = cause
      if (error instanceof ApiError) return reply(error.status, error.code, error.message, error.details, error.headers)
      if (code === 'VALIDATION') {
        const validator = (error as any).validator
        const standard = validator?.['~standard'] ?? validator?.schema?.['~standard']
        const issues = standard ? (standard.validate((error as any).value).issues ?? []) : []
        const details = issuesToDetails(issues)
        return reply(400, 'validation_failed', details[0] ? `${details[0].path}: ${details[0].message}` : 'request failed validation', details)
      }
      if (code === 'PARSE') return reply(400, 'invalid_json', 'request body is not valid JSON')
      if (code === 'NOT_FOUND') return reply(404, 'not_found', `no route for ${request.method} ${path}`)
      if (isDatabaseUnavailable(error)) {
        log.warn('database unavailable', { request_id: id, error: String((error as Error).message ?? error) })
        return reply(503, 'unavailable', 'the service is temporarily unavailable, retry later', undefined, { 'retry-after': '5' })
      }
      log.error('unhandled error', { request_id: id, path, error: String((error as Error)?.message ?? error), stack: (error as Error)?.stack })
      return reply(500, 'internal', 'internal error')
    })
    .onAfterResponse({ as: 'global' }, ({ request, set, path, route }) => {
      const m = meta.get(request)
      if (!m) return
      log.info('request', {
        request_id: m.id,
        method: request.method,
        route: route || path,
        status: typeof set.status === 'number' ? set.status : 200,
        duration_ms: Math.round((performance.now() - m.start) * 100) / 100,
        ...(m.orgId ? { org_id: m.orgId } : {}),
      })
    })
}

export function buildApp(deps: AppDeps) {
  const documentation = {
    info: { title: 'Behavioral Scoring Service', version: API_VERSION, description: 'Contract: shared/API.md. GraphQL is served at POST /graphql.' },
    // Filled by documentBodies once the routes exist (path items are plain JSON here).
    paths: {} as Record<string, any>,
  }
  const app = new Elysia({ name: 'bss' })
    .use(httpCore(deps))
    .use(
      openapi({
        path: '/docs',
        documentation,
        mapJsonSchema: { valibot: jsonSchema },
        exclude: { paths: ['/dev/mail'] },
      })
    )
    .use(healthModule(deps))
    .use(authModule(deps))
    .use(mailModule(deps))
    .use(keysModule(deps))
    .use(graphqlModule(deps))
    .use(ingestModule(deps))
    .use(orgModule(deps))
    .use(demoModule(deps))
    .use(webModule(deps))
  documentBodies(app, documentation.paths)
  return app
}

const jsonSchema = (schema: any) => toJsonSchema(schema, { errorMode: 'ignore' })

/**
 * The OpenAPI plugin lists a body's media types only for Elysia's named parsers, and every route
 * here goes through httpCore's own parser: so the documented request bodies are filled in from
 * the routes' valibot schemas, the single source of the shapes.
 */
function documentBodies(app: { routes: { method: string; path: string; hooks: { body?: unknown } }[] }, paths: Record<string, any>) {
  for (const route of app.routes) {
    const body = route.hooks.body as { '~standard'?: { vendor: string } } | undefined
    if (route.method !== 'POST' || body?.['~standard']?.vendor !== 'valibot') continue
    const schema = jsonSchema(body)
    const content: Record<string, { schema: unknown }> = { 'application/json': { schema } }
    if (TEXT_JSON_PATHS.has(route.path)) content['text/plain'] = { schema }
    paths[route.path] = { post: { operationId: `post${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`, requestBody: { required: true, content } } }
  }
}

export type App = ReturnType<typeof buildApp>
