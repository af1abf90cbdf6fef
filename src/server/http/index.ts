import type { AnyElysia, Elysia } from 'elysia'
import type { Logger } from '../platform/log'
import { accessLog } from './access-log'
import { type Admission, loadShedding } from './admission'
import { allowedMethods } from './allowed-methods'
import { bodyParser } from './body'
import { requestContext } from './context'
import { errorEnvelope } from './error-envelope'
import { securityHeaders } from './security-headers'

export { bodyMediaTypes, bodyOptions } from './body'
export { requestId, tagOrg } from './context'

/**
 * The HTTP pipeline every route runs in, in this order: request id + context, load shedding,
 * security headers, body parsing, the error envelope, the access log. Used first, before any module.
 */
export function httpPipeline({
  log,
  config,
  lifecycle,
  admission,
  handlers = [],
}: {
  log: Logger
  config: { bodyLimitBytes: number }
  lifecycle: { draining: boolean }
  admission: Admission
  /** Plugins that must run after parsing is set up and whose onError must run before the envelope's (idempotency). */
  handlers?: AnyElysia[]
}) {
  return (app: Elysia<any, any, any, any, any, any, any>) => {
    app.use(requestContext(lifecycle)).use(loadShedding(admission)).use(securityHeaders()).use(bodyParser(config.bodyLimitBytes))
    for (const handler of handlers) app.use(handler)
    return app
      .use(
        errorEnvelope(
          log,
          allowedMethods(() => app.routes)
        )
      )
      .use(accessLog(log))
  }
}
