import { Elysia } from 'elysia'
import { clientIp, type TrustProxy } from '../platform/client-ip'
import { type RateDecision, rateLimitedError, rateLimitHeaders } from '../platform/ratelimit'
import type { Principal } from './credentials'
import type { RateLimitRule, RateLimits } from './rate-limits'

export type { RateLimitRule, RateLimits } from './rate-limits'

type Headers = Record<string, string | number>

function apply(set: { headers: Headers }, d: RateDecision) {
  Object.assign(set.headers, rateLimitHeaders(d))
  if (!d.allowed) throw rateLimitedError(d)
}

/**
 * Rate-limit plugin. A route declares its limit:
 *   { rateLimit: { scope: 'ip', name: 'live-score' } }   public endpoint, per client IP
 *   { auth: ['secret'], rateLimit: { scope: 'key' } }    per API key (or dashboard user) and per organization
 * Every response of a limited route carries RateLimit-Limit/-Remaining/-Reset; a refusal is
 * 429 rate_limited with Retry-After.
 */
export function rateLimitPlugin({
  rateLimits: limits,
  config: { trustProxy },
}: {
  rateLimits: RateLimits
  config: { trustProxy: TrustProxy }
}) {
  return new Elysia({ name: 'ratelimit' }).macro({
    rateLimit: (rule: RateLimitRule) =>
      rule.scope === 'ip'
        ? {
            // transform runs before body validation, so malformed requests spend tokens too.
            async transform({ request, server, set }) {
              apply(set as { headers: Headers }, await limits.ip(clientIp(request, server, trustProxy), rule))
            },
          }
        : {
            // beforeHandle runs after every resolve, so the auth macro's principal is there.
            async beforeHandle(context) {
              const principal = (context as unknown as { principal?: Principal }).principal
              if (!principal) throw new Error(`rateLimit scope '${rule.scope}' needs the auth macro on the same route`)
              apply(context.set as { headers: Headers }, await limits.principal(principal, rule))
            },
          },
  })
}
