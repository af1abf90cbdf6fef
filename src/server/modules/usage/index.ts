import { Elysia } from 'elysia'
import type { Clock } from '../../platform/clock'
import type { Db } from '../../platform/db'
import { ApiError } from '../../platform/errors'
import { authPlugin, type Credentials } from '../../plugins/auth'
import type { TrustProxy } from '../../platform/client-ip'
import { type RateLimits, rateLimitPlugin } from '../../plugins/ratelimit'
import { readPlanUsage } from './service'

export { usageGraphQL } from './graphql'
export {
  claimSession,
  getPlanUsage,
  quotaExceeded,
  quotaHeaders,
  readPlanUsage,
  readQuota,
  type PlanUsage,
  type Quota,
} from './service'

/** GET /v1/org/usage. The module owns the monthly session counters, and with them the ingest quota (claimSession). */
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
      { auth: ['secret', 'jwt'], rateLimit: { scope: 'key' } }
    )
}
