import { Elysia } from 'elysia'
import { API_VERSION } from '../../platform/contract'
import type { Db } from '../../platform/db'
import { ApiError } from '../../platform/errors'

/** Liveness and readiness. `lifecycle.draining` is set by main.ts on SIGTERM: /ready then answers 503. */
export function healthModule({ db, lifecycle }: { db: Db; lifecycle: { readonly draining: boolean } }) {
  return new Elysia({ name: 'health' })
    .get('/health', () => ({ status: 'ok', version: API_VERSION }))
    .get('/ready', async () => {
      if (lifecycle.draining) throw new ApiError('unavailable', 'shutting down', undefined, { 'retry-after': '5' })
      if (!(await db.ping())) throw new ApiError('unavailable', 'database is not reachable', undefined, { 'retry-after': '5' })
      return { status: 'ready', database: db.kind }
    })
}
