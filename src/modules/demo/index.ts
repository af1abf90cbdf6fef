import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { rateLimit } from '../ratelimit'
import { LiveScoreBody } from './model'

type Scoring = {
  scoreFeatures(features: number[]): { hcs: number; m3_score: number; verdict: string } | Promise<{ hcs: number; m3_score: number; verdict: string }>
  MODEL_VERSION: string
}
let scoring: Promise<Scoring> | undefined
const loadScoring = () => (scoring ??= import('../scoring/service') as Promise<Scoring>)

/** The marketing site's live demo: the model on caller-supplied features, no credential, nothing stored. */
export function demoModule(deps: AppDeps) {
  return new Elysia({ name: 'demo', prefix: '/v1/demo' })
    .use(rateLimit(deps))
    .post(
      '/live-score',
      async ({ body }) => {
        const { scoreFeatures, MODEL_VERSION } = await loadScoring()
        const { hcs, m3_score, verdict } = await scoreFeatures(body.features)
        return { hcs, m3_score, verdict, model_version: MODEL_VERSION }
      },
      // Unauthenticated model access: the per-IP limit is what keeps it from being a free scoring oracle.
      { rateLimit: { scope: 'ip', name: 'live-score' }, body: LiveScoreBody }
    )
}
