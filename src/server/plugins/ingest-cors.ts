import { Elysia } from 'elysia'

/** The only browser-facing API route: the web SDK posts batches here from customers' pages. */
export const CORS_PATH = '/v1/ingest'

const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type, X-API-Key, X-Request-Id',
  'access-control-max-age': '600',
}
/** What a browser script may read of a cross-origin answer: the rate-limit state as well as the quota. */
export const RATE_LIMIT_EXPOSE = 'RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Request-Id'
const EXPOSE_HEADERS = `X-Quota-Limit, X-Quota-Remaining, X-Quota-Reset, ${RATE_LIMIT_EXPOSE}`

/**
 * CORS for POST /v1/ingest only. A preflight carries no key, so it is answered for any origin;
 * the POST itself is where each public key's origin allow-list is enforced (tenancy, 403).
 */
export function ingestCors() {
  // Answered in onRequest: a preflight has no body, and must not reach the JSON body parser.
  return new Elysia({ name: 'ingest-cors' }).onRequest(({ request, set }) => {
    if (!request.url.includes(CORS_PATH) || new URL(request.url).pathname !== CORS_PATH) return
    const origin = request.headers.get('origin')
    if (origin) {
      set.headers['access-control-allow-origin'] = origin
      set.headers['access-control-expose-headers'] = EXPOSE_HEADERS
      set.headers['vary'] = 'Origin'
    }
    if (request.method === 'OPTIONS') {
      Object.assign(set.headers, PREFLIGHT_HEADERS)
      set.headers['vary'] = 'Origin'
      set.status = 204
      return new Response(null, { status: 204 })
    }
  })
}
