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
import { findKeyPair } from '../keys'
import { quotaHeaders } from '../usage'
import { component, errors, jsonBody, jsonSchemaOf, ok } from '../../http/openapi'
import { exportLabelled, labelSession } from './dashboard'
import {
  ExportQuery,
  IngestAcceptedSchema,
  ingestBody,
  LabelBody,
  LabelResultSchema,
  periodOf,
  SessionParams,
  SessionResultSchema,
  SignalEvent,
} from './model'
import { GroupCommit, KnownSessions, ScoringRuns, SessionQueue } from './queue'
import { currentResult, ingestBatch, type SessionResult, type WriteJob, writeGroup } from './service'

export { sessionsGraphQL } from './graphql'
export {
  createPartitionsAhead,
  getSessionResult,
  purgeOldSignals,
  QUIET_MS,
  scoreQuietSessions,
  type SessionResult,
} from './service'

const SessionResultRef = component('SessionResult', SessionResultSchema, {
  session_id: '3f0c7b9e-8d2a-4c1b-9e6f-5a4d3c2b1a09',
  hcs: 87.4,
  m3_score: 0.9312,
  verdict: 'human_verified',
  reasons: ['pointer_dynamics_natural'],
  signals: 412,
  batches: 3,
  model_version: 'm3-2026.11.0',
  first_seen_at: '2026-11-23T12:00:00.000Z',
  scored_at: '2026-11-23T12:00:09.000Z',
  label: null,
})
const quota = (what: string) => ({ description: what, schema: { type: 'integer', minimum: 0 } })
const QUOTA_HEADERS = {
  'X-Quota-Limit': quota('Sessions per month on the plan.'),
  'X-Quota-Remaining': quota('Sessions left this month.'),
  'X-Quota-Reset': quota('Seconds to the next billing month.'),
}

/** The documented batch: the validating schema, with the signal event as a named component. */
function ingestBodyDoc() {
  const schema = jsonSchemaOf(ingestBody(() => new Date()))
  schema.properties.signals.items = component('Signal', SignalEvent, { t: 1520, k: 'mm', x: 412, y: 220 })
  const batch = component('IngestBatch', schema, {
    session_id: '3f0c7b9e-8d2a-4c1b-9e6f-5a4d3c2b1a09',
    sdk_type: 'web',
    captured_at: '2026-11-23T12:00:05.000Z',
    signals: [
      { t: 1520, k: 'mm', x: 412, y: 220 },
      { t: 1610, k: 'c', x: 415, y: 223 },
    ],
    features: Array.from({ length: 34 }, () => 0),
  })
  return { required: true, content: { 'application/json': { schema: batch }, 'text/plain': { schema: batch } } }
}

type IngestServices = { db: Db; clock: Clock; config: { trustProxy: TrustProxy }; credentials: Credentials; rateLimits: RateLimits }

/** POST /v1/ingest (SDK batches), GET /v1/session/:session_id (stored results), labels and their export. */
export function ingestModule(services: IngestServices) {
  const { db, clock } = services
  // One per app instance: batches of one session are written one at a time without holding a connection while they wait.
  // One scoring run per session at a time (plus one waiting), however many secret-key requests ask.
  // Batches of different sessions of one organization share transactions (group commit) while earlier
  // groups are being written; at most 8 groups at a time, so reads and scoring keep connections of the pool.
  const lanes = {
    queue: new SessionQueue(),
    writer: new GroupCommit<WriteJob>(
      (job) => job.input.orgId,
      (jobs) => writeGroup(db, jobs)
    ),
    scoring: new ScoringRuns<SessionResult | null>(),
    known: new KnownSessions(),
  }
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
      {
        auth: ['public', 'secret'],
        rateLimit: { scope: 'key' },
        beaconBody: true,
        body: routeSchema(ingestBody(() => clock.now())),
        detail: {
          operationId: 'ingestBatch',
          summary: 'Send a batch of signals',
          description:
            'Appends the batch to its session (a retried identical batch is not appended twice). A secret key gets the session result (200); a public key (browser SDK) only an acknowledgement (202). For `navigator.sendBeacon` the public key may come as `?key=` with a `text/plain` body. A session takes batches for 30 minutes and at most 50,000 signals (409 after).',
          tags: ['Ingest'],
          requestBody: ingestBodyDoc(),
          responses: {
            200: ok('Secret key: the session result over all of its batches.', SessionResultRef, QUOTA_HEADERS),
            202: ok(
              'Public key: stored, no score.',
              component('IngestAccepted', IngestAcceptedSchema, { session_id: '3f0c7b9e-8d2a-4c1b-9e6f-5a4d3c2b1a09', accepted: 2 }),
              QUOTA_HEADERS
            ),
            ...errors(400, 401, 403, 409, 413, 415, 429, 503),
          },
        },
      }
    )
    .get(
      '/session/:session_id',
      async ({ principal, params }) => {
        const result = await currentResult(db, principal.orgId, params.session_id, clock.now(), lanes.scoring)
        if (!result) throw new ApiError('not_found', 'no such session')
        return result
      },
      {
        auth: ['secret'],
        rateLimit: { scope: 'key' },
        params: routeSchema(SessionParams),
        detail: {
          operationId: 'getSession',
          summary: 'Get a session’s result',
          description: 'The score over every stored signal of the session. Another organization’s session is a 404.',
          tags: ['Ingest'],
          responses: { 200: ok('The session result.', SessionResultRef), ...errors(400, 401, 403, 404, 429, 503) },
        },
      }
    )
    .post(
      '/session/:session_id/label',
      async ({ principal, params, body }) => {
        // Who labelled it, as it reads now: the key's name (a renamed or revoked key keeps the old text).
        const key = principal.keyPairId
          ? await db.tenant(principal.orgId, (tx) => findKeyPair(tx, principal.orgId, principal.keyPairId!))
          : null
        const row = await labelSession(db, principal.orgId, {
          sessionId: params.session_id,
          label: body.label,
          note: body.note ?? null,
          by: `api key ${key?.name ?? principal.keyPairId ?? 'unknown'}`,
          now: clock.now(),
        })
        return { session_id: row.session_id, label: row.label, labeled_at: row.labeled_at.toISOString() }
      },
      {
        auth: ['secret'],
        rateLimit: { scope: 'key' },
        params: routeSchema(SessionParams),
        body: routeSchema(LabelBody),
        detail: {
          operationId: 'labelSession',
          summary: 'Label a session human or bot',
          description:
            'Stores your own label for the session (relabelling replaces it), with an optional note. Labels feed the error rates and the threshold simulation in the dashboard and can be exported for retraining; they do not change the score. Another organization’s session is a 404.',
          tags: ['Labels'],
          requestBody: jsonBody(LabelBody, { label: 'human', note: 'completed a purchase with a verified card' }),
          responses: {
            200: ok(
              'The label as stored.',
              component('LabelResult', LabelResultSchema, {
                session_id: '3f0c7b9e-8d2a-4c1b-9e6f-5a4d3c2b1a09',
                label: 'human',
                labeled_at: '2026-11-23T12:05:00.000Z',
              })
            ),
            ...errors(400, 401, 403, 404, 409, 415, 429, 503),
          },
        },
      }
    )
    .get(
      '/labels/export',
      ({ principal, query }) => {
        if (principal.role !== 'owner' && principal.role !== 'admin')
          throw new ApiError('forbidden', 'the export needs the role owner or admin')
        const period = periodOf(query as { from?: Date | null; to?: Date | null })
        return new Response(exportLabelled(db, principal.orgId, period), {
          headers: { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' },
        })
      },
      {
        auth: ['jwt'],
        rateLimit: { scope: 'key' },
        query: routeSchema(ExportQuery),
        detail: {
          operationId: 'exportLabels',
          summary: 'Export labelled sessions (NDJSON)',
          description:
            'The organization’s labelled sessions whose first batch arrived in [from, to), oldest first, streamed as NDJSON: one JSON object per line with `session_id`, `label`, `note`, `labeled_at`, `hcs`, `m3_score`, `verdict`, `model_version`, `first_seen_at` and `signals` (every stored signal in order; none once retention purged them). Dashboard JWT of an owner or admin. `ml/data/labelled-export.ts` reads it.',
          tags: ['Labels'],
          responses: {
            200: {
              description: 'One labelled session per line.',
              content: { 'application/x-ndjson': { schema: { type: 'string', description: 'NDJSON lines, see the description.' } } },
            },
            ...errors(400, 401, 403, 429, 503),
          },
        },
      }
    )
}
