import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { ApiError } from '../../platform/errors'
import { routeSchema } from '../../platform/validation'
import { rateLimit } from '../ratelimit'
import { tenancy } from '../tenancy'
import { ingestBody, SessionParams } from './model'
import { getSessionResult, ingestBatch, quotaHeaders, startRetention } from './service'

/** POST /v1/ingest (SDK batches) and GET /v1/session/:session_id (stored results). */
export function ingestModule(deps: AppDeps) {
  const { db, clock, config } = deps
  const stopRetention = startRetention(deps)
  return new Elysia({ name: 'ingest', prefix: '/v1' })
    .use(tenancy(deps))
    .use(rateLimit(deps))
    .onStop(stopRetention)
    .post(
      '/ingest',
      async ({ principal, body, set, status }) => {
        const outcome = await ingestBatch(db, { orgId: principal.orgId, keyPairId: principal.keyPairId, now: clock.now(), body })
        Object.assign(set.headers, quotaHeaders(outcome.quota))
        // A browser (public key) gets no score back: it must not become a scoring oracle.
        if (principal.kind === 'public') return status(202, { session_id: body.session_id, accepted: outcome.accepted })
        return outcome.result
      },
      { auth: ['public', 'secret'], rateLimit: { scope: 'key' }, body: routeSchema(ingestBody(() => clock.now())) }
    )
    .get(
      '/session/:session_id',
      async ({ principal, params }) => {
        const result = await db.tenant(principal.orgId, (tx) => getSessionResult(tx, principal.orgId, params.session_id))
        if (!result) throw new ApiError('not_found', 'no such session')
        return result
      },
      { auth: ['secret'], rateLimit: { scope: 'key' }, params: routeSchema(SessionParams) }
    )
}
