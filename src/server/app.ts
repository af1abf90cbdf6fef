import { openapi } from '@elysiajs/openapi'
import { toJsonSchema } from '@valibot/to-json-schema'
import { Elysia } from 'elysia'
import { bodyMediaTypes, httpPipeline } from './http'
import { authModule } from './modules/auth'
import { demoModule } from './modules/demo'
import { graphqlModule } from './modules/graphql'
import { healthModule } from './modules/health'
import { ingestModule } from './modules/ingest'
import { keysGraphQL } from './modules/keys'
import { mailModule } from './modules/mail'
import { orgGraphQL, orgModule } from './modules/org'
import { usageGraphQL, usageModule } from './modules/usage'
import { webModule } from './modules/web'
import { API_VERSION } from './platform/contract'
import type { Services } from './services'

/** Composition only: the HTTP pipeline, the OpenAPI document, then each module with the services it uses. */
export function buildApp(services: Services) {
  const { config, db, log, clock, mailer, limiter, tokens, lifecycle, credentials, rateLimits } = services
  const documentation = {
    info: {
      title: 'Behavioral Scoring Service',
      version: API_VERSION,
      description: 'Contract: shared/API.md. GraphQL is served at POST /graphql.',
    },
    // Filled by documentBodies once the routes exist (path items are plain JSON here).
    paths: {} as Record<string, any>,
  }
  const app = new Elysia({ name: 'bss' })
    .use(httpPipeline({ log, config, lifecycle }))
    .use(
      openapi({
        path: '/docs',
        documentation,
        mapJsonSchema: { valibot: jsonSchema },
        exclude: { paths: ['/dev/mail'] },
      })
    )
    .use(healthModule({ db, lifecycle }))
    .use(authModule({ db, clock, mailer, log, limiter, tokens, config, rateLimits }))
    .use(mailModule({ config, db }))
    .use(
      graphqlModule({
        credentials,
        rateLimits,
        log,
        config,
        parts: [usageGraphQL({ db, clock }), keysGraphQL({ db, credentials }), orgGraphQL({ db })],
      })
    )
    .use(ingestModule({ db, clock, config, credentials, rateLimits }))
    .use(usageModule({ db, clock, config, credentials, rateLimits }))
    .use(orgModule({ db, clock, mailer, log, config, credentials, rateLimits }))
    .use(demoModule({ config, rateLimits }))
    .use(webModule({ db, config, rateLimits }))
  documentBodies(app, documentation.paths)
  return app
}

const jsonSchema = (schema: any) => toJsonSchema(schema, { errorMode: 'ignore' })

/**
 * The OpenAPI plugin lists a body's media types only for Elysia's named parsers, and every route
 * here goes through the pipeline's own parser: so the documented request bodies are filled in from
 * the routes' valibot schemas, the single source of the shapes.
 */
function documentBodies(
  app: { routes: { method: string; path: string; hooks: { body?: unknown; parse?: unknown } }[] },
  paths: Record<string, any>
) {
  for (const route of app.routes) {
    const body = route.hooks.body as { '~standard'?: { vendor: string } } | undefined
    if (route.method !== 'POST' || body?.['~standard']?.vendor !== 'valibot') continue
    const schema = jsonSchema(body)
    const content = Object.fromEntries(bodyMediaTypes(route.hooks).map((type) => [type, { schema }]))
    paths[route.path] = {
      post: {
        operationId: `post${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
        requestBody: { required: true, content },
      },
    }
  }
}

export type App = ReturnType<typeof buildApp>
