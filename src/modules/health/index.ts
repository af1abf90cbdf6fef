import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { ApiError } from '../../errors'

export function healthModule({ db }: AppDeps) {
  return new Elysia({ name: 'health' })
    .get('/health', () => ({ status: 'ok', version: '1.0.0' }))
    .get('/ready', async () => {
      if (!(await db.ping())) throw new ApiError('unavailable', 'database is not reachable', undefined, { 'retry-after': '5' })
      return { status: 'ready', database: db.kind }
    })
}
