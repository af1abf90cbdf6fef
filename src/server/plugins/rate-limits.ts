import type { Config } from '../platform/config'
import type { Logger } from '../platform/log'
import type { RateDecision, RateLimiter } from '../platform/ratelimit'
import type { Principal } from './credentials'

export const WINDOW_MS = 60_000
const PLAN_CACHE_MS = 60_000

/**
 * A route's rate limit.
 * - `ip`: one bucket per client IP and `name` (public endpoints); default RATE_LIMIT_IP_PER_MIN.
 * - `key`: one bucket per credential (API key pair, or dashboard user) *and* one per organization;
 *   needs `auth`. Per credential: `perMinute`, else the plan's rate_limit_per_minute, else
 *   RATE_LIMIT_KEY_PER_MIN; per organization: `orgPerMinute`, else the larger of RATE_LIMIT_ORG_PER_MIN
 *   and the plan's.
 * - `org`: the organization's bucket only (`perMinute`, else as above); needs `auth`.
 * Without `name`, key and org buckets are shared by every route, so a key has one budget API-wide.
 */
export type RateLimitRule =
  | { scope: 'ip'; name: string; perMinute?: number }
  | { scope: 'key' | 'org'; name?: string; perMinute?: number; orgPerMinute?: number }

export type RateLimits = ReturnType<typeof createRateLimits>

export function createRateLimits({
  planRateLimit,
  config,
  limiter,
  log,
}: {
  /** plans.rate_limit_per_minute (org module); null when the plan has no override. */
  planRateLimit(planId: string): Promise<number | null>
  config: Pick<Config, 'rateLimits'>
  limiter: RateLimiter
  log: Logger
}) {
  const planLimits = new Map<string, { perMinute: number | null; expires: number }>()

  /** plans.rate_limit_per_minute, cached per instance so a request costs no query. */
  async function planPerMinute(planId: string): Promise<number | null> {
    const now = Date.now()
    const hit = planLimits.get(planId)
    if (hit && hit.expires > now) return hit.perMinute
    try {
      const perMinute = await planRateLimit(planId)
      planLimits.set(planId, { perMinute, expires: now + PLAN_CACHE_MS })
      return perMinute
    } catch (error) {
      // The limit is a ceiling, not an authorization: an unreadable override falls back to the default.
      log.warn('plan rate limit lookup failed', { plan_id: planId, error: String((error as Error)?.message ?? error) })
      return hit?.perMinute ?? null
    }
  }

  async function keyLimit(principal: Principal, rule: RateLimitRule): Promise<number> {
    return rule.perMinute ?? (await planPerMinute(principal.planId)) ?? config.rateLimits.keyPerMin
  }

  // A plan's per-key allowance is never cut below itself by the org-wide default.
  async function orgLimit(principal: Principal, rule: RateLimitRule): Promise<number> {
    if (rule.scope === 'org' && rule.perMinute) return rule.perMinute
    if (rule.scope === 'key' && rule.orgPerMinute) return rule.orgPerMinute
    return Math.max(config.rateLimits.orgPerMin, (await planPerMinute(principal.planId)) ?? 0)
  }

  const suffix = (rule: RateLimitRule) => (rule.name ? `:${rule.name}` : '')

  return {
    /** Takes a token for a public endpoint from the caller's IP bucket. */
    ip(ip: string, rule: RateLimitRule): Promise<RateDecision> {
      return limiter.take(`ip${suffix(rule)}:${ip}`, rule.perMinute ?? config.rateLimits.ipPerMin, WINDOW_MS)
    },

    /** Takes a token from the credential's and/or the organization's bucket; reports the tighter one. */
    async principal(principal: Principal, rule: RateLimitRule): Promise<RateDecision> {
      let keyDecision: RateDecision | undefined
      if (rule.scope === 'key') {
        const credential = principal.keyPairId ? `key:${principal.keyPairId}` : `user:${principal.userId ?? principal.orgId}`
        keyDecision = await limiter.take(`${credential}${suffix(rule)}`, await keyLimit(principal, rule), WINDOW_MS)
        if (!keyDecision.allowed) return keyDecision
      }
      const orgDecision = await limiter.take(`org${suffix(rule)}:${principal.orgId}`, await orgLimit(principal, rule), WINDOW_MS)
      if (!keyDecision || !orgDecision.allowed) return orgDecision
      return orgDecision.remaining < keyDecision.remaining ? orgDecision : keyDecision
    },

    /** Tests: forget cached plan limits. */
    forgetPlans() {
      planLimits.clear()
    },
  }
}
