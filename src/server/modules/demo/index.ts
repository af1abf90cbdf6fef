import { Elysia } from 'elysia'
import { routeSchema } from '../../platform/validation'
import type { TrustProxy } from '../../platform/client-ip'
import { type RateLimits, rateLimitPlugin } from '../../plugins/ratelimit'
import { scoreFeatures } from '../../../scoring/service'
import { LiveScoreBody } from './model'

/** The marketing site's live demo: the model on caller-supplied features, no credential, nothing stored. */
export function demoModule(services: { config: { trustProxy: TrustProxy }; rateLimits: RateLimits }) {
  return new Elysia({ name: 'demo', prefix: '/v1/demo' }).use(rateLimitPlugin(services)).post(
    '/live-score',
    ({ body }) => {
      const { hcs, m3_score, verdict, model_version } = scoreFeatures(body.features)
      return { hcs, m3_score, verdict, model_version }
    },
    // Unauthenticated model access: the per-IP limit is what keeps it from being a free scoring oracle.
    { rateLimit: { scope: 'ip', name: 'live-score' }, body: routeSchema(LiveScoreBody) }
  )
}
