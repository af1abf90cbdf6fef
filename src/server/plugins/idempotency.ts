import { Elysia } from 'elysia'
import { parse } from 'graphql'
import { graphqlErrorResponse } from '../http/access-log'
import { clientIp, type TrustProxy } from '../platform/client-ip'
import { ApiError, isDatabaseUnavailable } from '../platform/errors'
import { readBodyLimited } from '../platform/http'

/** A stored first answer (modules/idempotency). */
export type StoredResponse = { status: number; headers: Record<string, string>; body: string }

/** Where keys are kept: modules/idempotency, wired in services.ts (plugins import no module). */
export type IdempotencyBackend<Claim = unknown> = {
  begin(
    scope: string,
    key: string,
    fingerprint: string
  ): Promise<
    { kind: 'claimed'; claim: Claim } | { kind: 'replay'; response: StoredResponse } | { kind: 'mismatch' } | { kind: 'in_progress' }
  >
  complete(claim: Claim, response: StoredResponse): Promise<void>
  release(claim: Claim): Promise<void>
}

/** POSTs with their own retry rule (API.md): ingest dedupes batches, refresh rotates its token. */
const EXEMPT = new Set(['/v1/ingest', '/auth/refresh'])
const KEY_RE = /^[\x21-\x7e]{1,255}$/
/** Headers of the first answer that belong to it (not to the replay's own request). */
const KEPT_HEADERS = ['content-type', 'location']

const claims = new WeakMap<Request, unknown>()

/** Only requests whose document holds a mutation: a query is safe to repeat and should not be frozen. */
function isMutationRequest(body: string): boolean {
  try {
    const query = (JSON.parse(body) as { query?: unknown })?.query
    if (typeof query !== 'string') return false
    return parse(query).definitions.some((d) => d.kind === 'OperationDefinition' && d.operation === 'mutation')
  } catch {
    return false // Yoga answers the malformed request
  }
}

async function captured(response: unknown, set: { status?: unknown; headers: Record<string, unknown> }): Promise<StoredResponse> {
  if (response instanceof Response) {
    const headers: Record<string, string> = {}
    for (const name of KEPT_HEADERS) {
      const value = response.headers.get(name)
      if (value) headers[name] = value
    }
    return { status: response.status, headers, body: await response.clone().text() }
  }
  let status = typeof set.status === 'number' ? set.status : 200
  let value = response
  // `status(201, body)` from a handler arrives as Elysia's custom status response.
  if (
    value &&
    typeof value === 'object' &&
    'code' in value &&
    'response' in value &&
    value.constructor?.name === 'ElysiaCustomStatusResponse'
  ) {
    status = Number((value as { code: number }).code)
    value = (value as { response: unknown }).response
  }
  const headers: Record<string, string> = {}
  for (const name of KEPT_HEADERS) if (typeof set.headers[name] === 'string') headers[name] = set.headers[name] as string
  if (value === undefined || value === null) return { status, headers, body: '' }
  if (typeof value === 'string') return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body: value }
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) }
}

/**
 * Idempotency-Key (API.md): within 24 h the same key and the same request (method, path, body)
 * replays the first answer with `Idempotent-Replayed: true`; the same key with another request is
 * 409. The key is claimed before anything runs, so of two identical requests at once only one
 * executes: the other gets 409 with Retry-After: 1 (it may retry and then gets the replay).
 * Only a successful (2xx) answer is kept: a refused request changed nothing, so its retry runs again.
 * Scope: the credential's organization, else the client IP.
 */
export function idempotencyPlugin({
  store,
  orgOf,
  config: { trustProxy, bodyLimitBytes },
}: {
  store: IdempotencyBackend
  /** The organization of the request's credential, or null (none, or not valid: it will be refused anyway). */
  orgOf(request: Request): Promise<string | null>
  config: { trustProxy: TrustProxy; bodyLimitBytes: number }
}) {
  return new Elysia({ name: 'idempotency' })
    .onRequest(async ({ request, server, set }) => {
      if (request.method !== 'POST') return
      const key = request.headers.get('idempotency-key')
      if (key === null) return
      const url = new URL(request.url)
      if (EXEMPT.has(url.pathname)) return
      const isGraphql = url.pathname === '/graphql'
      if (!KEY_RE.test(key)) {
        const message = 'Idempotency-Key must be 1–255 visible ASCII characters'
        if (isGraphql) return graphqlErrorResponse(request, 400, 'BAD_USER_INPUT', message)
        throw new ApiError('validation_failed', message, [{ path: 'Idempotency-Key', message }])
      }
      let body: string
      try {
        body = await readBodyLimited(request.clone(), bodyLimitBytes)
      } catch {
        return // over the limit: the body parser answers 413
      }
      if (isGraphql && !isMutationRequest(body)) return
      const org = await orgOf(request)
      const scope = org ? `org:${org}` : `ip:${clientIp(request, server, trustProxy)}`
      let begun: Awaited<ReturnType<IdempotencyBackend['begin']>>
      try {
        begun = await store.begin(scope, key, `POST ${url.pathname}${url.search}\n${body}`)
      } catch (error) {
        // /graphql answers its own outage in GraphQL's shape (API.md); REST gets the envelope's 503.
        if (isGraphql && isDatabaseUnavailable(error)) {
          return graphqlErrorResponse(request, 503, 'UNAVAILABLE', 'the service is temporarily unavailable, retry later', {
            'retry-after': '5',
          })
        }
        throw error
      }
      switch (begun.kind) {
        case 'claimed':
          claims.set(request, begun.claim)
          return
        case 'replay': {
          const { status, headers, body: stored } = begun.response
          Object.assign(set.headers, headers, { 'idempotent-replayed': 'true' })
          return new Response(status === 204 ? null : stored, { status })
        }
        case 'mismatch': {
          const message = 'this Idempotency-Key was used with a different request in the last 24 hours'
          if (isGraphql) return graphqlErrorResponse(request, 409, 'BAD_USER_INPUT', message)
          throw new ApiError('conflict', message)
        }
        case 'in_progress': {
          const message = 'a request with this Idempotency-Key is still being processed; retry shortly'
          if (isGraphql) return graphqlErrorResponse(request, 409, 'BAD_USER_INPUT', message, { 'retry-after': '1' })
          throw new ApiError('conflict', message, undefined, { 'retry-after': '1' })
        }
      }
    })
    .onAfterHandle({ as: 'global' }, async ({ request, response, set }) => {
      const claim = claims.get(request)
      if (claim === undefined) return
      claims.delete(request)
      const answer = await captured(response, set as { status?: unknown; headers: Record<string, unknown> })
      if (answer.status >= 200 && answer.status < 300) await store.complete(claim, answer)
      else await store.release(claim)
    })
    .onError({ as: 'global' }, async ({ request }) => {
      const claim = claims.get(request)
      if (claim === undefined) return
      claims.delete(request)
      await store.release(claim).catch(() => undefined) // the lock runs out by itself (IDEMPOTENCY_LOCK_MS)
    })
}
