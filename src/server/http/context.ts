import { Elysia } from 'elysia'
import { API_VERSION } from '../platform/contract'
import { requestIdFrom } from '../platform/http'

/**
 * Per-request facts every layer may need (the id, the start time, the organization acted for).
 * A leaf module: modules and plugins import it, it imports none of them, so no cycle runs through app.ts.
 */
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

export function requestMeta(request: Request): Readonly<RequestMeta> | undefined {
  return meta.get(request)
}

/** Gives each request its id (X-Request-Id, echoed or new) and the API version header. */
export function requestContext(lifecycle: { draining: boolean }) {
  return new Elysia({ name: 'http-request-context' }).onRequest(({ request, set }) => {
    const id = requestIdFrom(request)
    meta.set(request, { id, start: performance.now() })
    set.headers['x-request-id'] = id
    set.headers['x-api-version'] = API_VERSION
    // While draining, each response asks its client to reconnect elsewhere (main.ts, shutdown).
    if (lifecycle.draining) set.headers['connection'] = 'close'
  })
}
