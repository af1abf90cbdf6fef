import { Elysia } from 'elysia'
import { bodyOptions } from '../../http/body'
import type { Clock } from '../../platform/clock'
import type { Db } from '../../platform/db'
import { ApiError } from '../../platform/errors'
import { routeSchema } from '../../platform/validation'
import { authPlugin, type Credentials } from '../../plugins/auth'
import { ingestCors } from '../../plugins/ingest-cors'
import type { TrustProxy } from '../../platform/client-ip'
import { type RateLimits, rateLimitPlugin } from '../../plugins/ratelimit'
import { quotaHeaders } from '../usage'
import { ingestBody, SessionParams } from './model'
import { ScoringRuns, SessionQueue } from './queue'
import { currentResult, ingestBatch, type SessionResult } from './service'

export { getSessionResult, purgeOldSignals, type SessionResult } from './service'

type IngestServices = { db: Db; clock: Clock; config: { trustProxy: TrustProxy }; credentials: Credentials; rateLimits: RateLimits }

/** POST /v1/ingest (SDK batches) and GET /v1/session/:session_id (stored results). */
export function ingestModule(services: IngestServices) {
  const { db, clock } = services
  // One per app instance: batches of one session are written one at a time without holding a connection while they wait.
  // One scoring run per session at a time (plus one waiting), however many secret-key requests ask.
  const lanes = { queue: new SessionQueue(), scoring: new ScoringRuns<SessionResult | null>() }
  return new Elysia({ name: 'ingest', prefix: '/v1' })
    .use(ingestCors())
    .use(bodyOptions)
    .use(authPlugin(services.credentials))
    .use(rateLimitPlugin(services))
    .post(
      '/ingest',
      async ({ principal, body, set, status }) => {
        // A browser (public key) gets no score back: it must not become a scoring oracle, and its batch is
        // stored without scoring; the score is computed when a secret key asks for it.
        const withResult = principal.kind !== 'public'
        const input = { orgId: principal.orgId, keyPairId: principal.keyPairId, now: clock.now(), body }
        const outcome = await ingestBatch(db, lanes, input, withResult)
        Object.assign(set.headers, quotaHeaders(outcome.quota))
        if (!withResult) return status(202, { session_id: body.session_id, accepted: outcome.accepted })
        return outcome.result
      },
      // beaconBody: navigator.sendBeacon can only send JSON as text/plain.
      { auth: ['public', 'secret'], rateLimit: { scope: 'key' }, beaconBody: true, body: routeSchema(ingestBody(() => clock.now())) }
    )
    .get(
      '/session/:session_id',
      async ({ principal, params }) => {
        const result = await currentResult(db, principal.orgId, params.session_id, clock.now(), lanes.scoring)
        if (!result) throw new ApiError('not_found', 'no such session')
        return result
      },
      { auth: ['secret'], rateLimit: { scope: 'key' }, params: routeSchema(SessionParams) }
    )
}
