import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { ApiError } from '../../platform/errors'
import { lifecycle } from '../../platform/lifecycle'

export function healthModule({ db }: AppDeps) {
  return new Elysia({ name: 'health' })
    .get('/health', () => ({ status: 'ok', version: '1.0.0' }))
    .get('/ready', async () => {
      if (lifecycle.draining) throw new ApiError('unavailable', 'shutting down', undefined, { 'retry-after': '5' })
      if (!(await db.ping())) throw new ApiError('unavailable', 'database is not reachable', undefined, { 'retry-after': '5' })
      return { status: 'ready', database: db.kind }
    })
}
