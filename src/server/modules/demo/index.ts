import { Elysia } from 'elysia'
import { routeSchema } from '../../platform/validation'
import type { TrustProxy } from '../../platform/client-ip'
import { type RateLimits, rateLimitPlugin } from '../../plugins/ratelimit'
import { scoreFeatures } from '../../../scoring/service'
import { FEATURE_COUNT } from '../../platform/contract'
import { component, errors, jsonBody, ok } from '../../http/openapi'
import { LiveScoreBody, LiveScoreSchema } from './model'

/** The marketing site's live demo: the model on caller-supplied features, no credential, nothing stored. */
export function demoModule(services: { config: { trustProxy: TrustProxy }; rateLimits: RateLimits }) {
  return new Elysia({ name: 'demo', prefix: '/v1/demo' }).use(rateLimitPlugin(services)).post(
    '/live-score',
    ({ body }) => {
      const { hcs, m3_score, verdict, model_version } = scoreFeatures(body.features)
      return { hcs, m3_score, verdict, model_version }
    },
    // Unauthenticated model access: the per-IP limit is what keeps it from being a free scoring oracle.
    {
      rateLimit: { scope: 'ip', name: 'live-score' },
      body: routeSchema(LiveScoreBody),
      detail: {
        operationId: 'liveScore',
        summary: 'Score features (demo)',
        description: 'The model on 34 caller-supplied features. Stores nothing, counts toward no quota; rate-limited per client IP.',
        tags: ['Demo'],
        requestBody: jsonBody(LiveScoreBody, { features: Array.from({ length: FEATURE_COUNT }, () => 0.5) }),
        responses: {
          200: ok(
            'The score.',
            component('LiveScore', LiveScoreSchema, {
              hcs: 87.4,
              m3_score: 0.9312,
              verdict: 'human_verified',
              model_version: 'm3-2026.11.0',
            })
          ),
          ...errors(400, 413, 415, 429, 503),
        },
      },
    }
  )
}
