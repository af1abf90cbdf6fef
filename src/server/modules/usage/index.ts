import { Elysia } from 'elysia'
import type { Clock } from '../../platform/clock'
import type { Db } from '../../platform/db'
import { ApiError } from '../../platform/errors'
import { authPlugin, type Credentials } from '../../plugins/auth'
import type { TrustProxy } from '../../platform/client-ip'
import { type RateLimits, rateLimitPlugin } from '../../plugins/ratelimit'
import { component, errors, ok } from '../../http/openapi'
import { PlanUsageSchema } from './model'
import { readPlanUsage } from './service'

export { usageGraphQL } from './graphql'
export {
  getPlanUsage,
  monthQuota,
  quotaExceeded,
  quotaHeaders,
  readPlanUsage,
  type PlanUsage,
  type Quota,
} from './service'

/** GET /v1/org/usage. The module owns the monthly session counters, and with them the ingest quota (usage_claim_sessions, sql/0014). */
export function usageModule(services: {
  db: Db
  clock: Clock
  config: { trustProxy: TrustProxy }
  credentials: Credentials
  rateLimits: RateLimits
}) {
  const { db, clock } = services
  return new Elysia({ name: 'usage', prefix: '/v1' })
    .use(authPlugin(services.credentials))
    .use(rateLimitPlugin(services))
    .get(
      '/org/usage',
      async ({ principal }) => {
        const usage = await readPlanUsage(db, principal.orgId, clock.now())
        if (!usage) throw new ApiError('not_found', 'organization not found')
        return usage
      },
      {
        auth: ['secret', 'jwt'],
        rateLimit: { scope: 'key' },
        detail: {
          operationId: 'getUsage',
          summary: 'Plan usage this month',
          description: 'The plan, the sessions counted this calendar month (UTC) and its limit.',
          tags: ['Usage'],
          responses: {
            200: ok(
              'The plan and this month’s count.',
              component('PlanUsage', PlanUsageSchema, {
                plan_id: 'free',
                display_name: 'Free',
                sessions_used: 412,
                sessions_limit: 1000,
                percent_used: 41.2,
                period_start: '2026-11-01T00:00:00.000Z',
                period_end: '2026-12-01T00:00:00.000Z',
              })
            ),
            ...errors(401, 404, 429, 503),
          },
        },
      }
    )
}
