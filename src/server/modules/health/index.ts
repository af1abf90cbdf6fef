import { Elysia } from 'elysia'
import * as v from 'valibot'
import { component, errors, ok } from '../../http/openapi'
import { API_VERSION } from '../../platform/contract'
import type { Db } from '../../platform/db'
import { ApiError } from '../../platform/errors'

const Health = component('Health', v.object({ status: v.literal('ok'), version: v.string() }), { status: 'ok', version: API_VERSION })
const Ready = component('Readiness', v.object({ status: v.literal('ready'), database: v.picklist(['pglite', 'postgres']) }), {
  status: 'ready',
  database: 'postgres',
})

/** Liveness and readiness. `lifecycle.draining` is set by main.ts on SIGTERM: /ready then answers 503. */
export function healthModule({ db, lifecycle }: { db: Db; lifecycle: { readonly draining: boolean } }) {
  return new Elysia({ name: 'health' })
    .get('/health', () => ({ status: 'ok', version: API_VERSION }), {
      detail: {
        operationId: 'getHealth',
        summary: 'Liveness',
        description: 'Answers 200 while the process runs.',
        tags: ['Health'],
        responses: { 200: ok('The process is up.', Health), ...errors() },
      },
    })
    .get(
      '/ready',
      async () => {
        if (lifecycle.draining) throw new ApiError('unavailable', 'shutting down', undefined, { 'retry-after': '5' })
        if (!(await db.ping())) throw new ApiError('unavailable', 'database is not reachable', undefined, { 'retry-after': '5' })
        return { status: 'ready', database: db.kind }
      },
      {
        detail: {
          operationId: 'getReadiness',
          summary: 'Readiness',
          description: '200 when the database answers; 503 while it does not, or while the instance shuts down.',
          tags: ['Health'],
          responses: { 200: ok('Ready to serve.', Ready), ...errors(503) },
        },
      }
    )
}
