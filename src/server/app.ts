import { Elysia } from 'elysia'
import { httpPipeline } from './http'
import { authModule } from './modules/auth'
import { demoModule } from './modules/demo'
import { docsModule } from './modules/docs'
import { graphqlModule } from './modules/graphql'
import { healthModule } from './modules/health'
import { ingestModule, sessionsGraphQL } from './modules/ingest'
import { keysGraphQL } from './modules/keys'
import { mailModule } from './modules/mail'
import { orgGraphQL, orgModule } from './modules/org'
import { thresholdsGraphQL } from './modules/thresholds'
import { usageGraphQL, usageModule } from './modules/usage'
import { webModule } from './modules/web'
import { idempotencyPlugin } from './plugins/idempotency'
import { publicCors } from './plugins/public-cors'
import type { Services } from './services'

/** Composition only: the HTTP pipeline, each module with the services it uses, then the API reference over them all. */
export function buildApp(services: Services) {
  const { config, db, log, clock, mailer, limiter, tokens, lifecycle, admission, credentials, rateLimits, idempotency } = services
  const app = new Elysia({ name: 'bss' })
    .use(
      httpPipeline({
        log,
        config,
        lifecycle,
        admission,
        handlers: [idempotencyPlugin({ store: idempotency, orgOf: (request) => credentials.orgOf(request), config })],
      })
    )
    .use(publicCors())
    .use(healthModule({ db, lifecycle }))
    .use(authModule({ db, clock, mailer, log, limiter, tokens, config, rateLimits }))
    .use(mailModule({ config, db }))
    .use(
      graphqlModule({
        credentials,
        rateLimits,
        log,
        config,
        parts: [
          usageGraphQL({ db, clock }),
          keysGraphQL({ db, credentials }),
          orgGraphQL({ db }),
          sessionsGraphQL({ db, clock }),
          thresholdsGraphQL({ db, clock }),
        ],
      })
    )
    .use(ingestModule({ db, clock, config, credentials, rateLimits }))
    .use(usageModule({ db, clock, config, credentials, rateLimits }))
    .use(orgModule({ db, clock, mailer, log, config, credentials, rateLimits }))
    .use(demoModule({ config, rateLimits }))
    .use(webModule({ db, config, rateLimits }))
    // Last: the OpenAPI document is built from every route above.
    .use(docsModule())
  return app
}

export type App = ReturnType<typeof buildApp>
