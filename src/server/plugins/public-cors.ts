import { Elysia } from 'elysia'
import { RATE_LIMIT_EXPOSE } from './ingest-cors'

/**
 * The public POSTs a page on another origin calls: a pricing page's lead form, a chat widget, a
 * demo. They take no credential, so there is nothing an origin could borrow: any origin may call
 * them (`*`, and no Allow-Credentials, so a browser never sends cookies along).
 */
export const PUBLIC_CORS_PATHS: readonly string[] = ['/v1/leads', '/v1/demo/live-score']

const HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': `${RATE_LIMIT_EXPOSE}, Idempotent-Replayed`,
}
const PREFLIGHT_HEADERS = {
  ...HEADERS,
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type, Idempotency-Key, X-Request-Id',
  'access-control-max-age': '600',
}

export function publicCors(paths: readonly string[] = PUBLIC_CORS_PATHS) {
  // Answered in onRequest, as for ingest: a preflight has no body and must not reach the JSON parser.
  return new Elysia({ name: 'public-cors' }).onRequest(({ request, set }) => {
    const url = request.url
    if (!paths.some((p) => url.includes(p)) || !paths.includes(new URL(url).pathname)) return
    if (request.method === 'OPTIONS') {
      Object.assign(set.headers, PREFLIGHT_HEADERS)
      return new Response(null, { status: 204 })
    }
    Object.assign(set.headers, HEADERS)
  })
}
