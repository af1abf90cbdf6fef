import { Elysia } from 'elysia'
import type { Logger } from '../platform/log'
import { requestMeta } from './context'

/** One line per request once the response is out: id, route, status, duration, organization. */
export function accessLog(log: Logger) {
  return new Elysia({ name: 'http-access-log' }).onAfterResponse({ as: 'global' }, ({ request, set, path, route }) => {
    const m = requestMeta(request)
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
