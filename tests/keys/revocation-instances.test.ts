import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { Elysia } from 'elysia'
import { buildApp } from '../../src/server/app'
import { httpPipeline } from '../../src/server/http'
import { loadConfig } from '../../src/server/platform/config'
import { openDb, type Db } from '../../src/server/platform/db'
import { createServices, type Services } from '../../src/server/services'
import { createAccessTokens } from '../../src/server/platform/access-token'
import { createLogger } from '../../src/server/platform/log'
import { outboxMailer } from '../../src/server/modules/mail'
import { MemoryRateLimiter } from '../../src/server/platform/ratelimit'
import { authPlugin } from '../../src/server/plugins/auth'
import { gql } from '../graphql/gql'
import { testDbKind } from '../helpers/db'
import { createHarness, type Harness } from '../helpers/harness'

const onPostgres = testDbKind() === 'postgres'
if (!onPostgres) console.warn('[skip] two-instance revocation test runs only with TEST_DB=postgres (PGlite is one in-process database)')

// Instance 1 is the harness app; instance 2 is a second buildApp with its own deps, pool and key cache on the same database.
let h: Harness
let db2: Db
let deps2: Services
let probe1: Elysia<any, any, any, any, any, any, any>
let probe2: Elysia<any, any, any, any, any, any, any>

beforeAll(async () => {
  if (!onPostgres) return
  h = await createHarness()
  db2 = await openDb({ url: h.testDb.url!, poolMax: 4, timeoutMs: 5000 })
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' })
  const log = createLogger('silent')
  deps2 = createServices({
    config,
    db: db2,
    log,
    clock: h.clock,
    mailer: outboxMailer(db2.sql, log),
    limiter: new MemoryRateLimiter(),
    tokens: createAccessTokens(config.jwtSecret),
  })
  buildApp(deps2)
  probe1 = new Elysia()
    .use(httpPipeline(h.deps))
    .use(authPlugin(h.deps.credentials))
    .get('/probe', ({ principal }) => principal, { auth: ['public', 'secret'] })
  probe2 = new Elysia()
    .use(httpPipeline(deps2))
    .use(authPlugin(deps2.credentials))
    .get('/probe', ({ principal }) => principal, { auth: ['public', 'secret'] })
}, 30_000)
afterAll(async () => {
  if (!onPostgres) return
  await db2.close()
  await h.close()
})

const status = async (app: Elysia<any, any, any, any, any, any, any>, key: string) =>
  (await app.handle(new Request('http://localhost/probe', { headers: { 'x-api-key': key } }))).status
const onInstance1 = (key: string) => status(probe1, key)
const onInstance2 = (key: string) => status(probe2, key)

describe('revocation across instances', () => {
  it.skipIf(!onPostgres)(
    'a key revoked on instance 1 is refused by instance 2 within 5 seconds',
    async () => {
      const created = await gql(
        h.app,
        { jwt: h.a.jwt },
        `mutation { createApiKey(name: "two instances", sdkType: SERVER) { keyPairId secretKey } }`
      )
      const { keyPairId, secretKey } = created.body.data.createApiKey
      // Both instances now hold the key in their caches.
      expect(await onInstance2(secretKey)).toBe(200)
      expect(await onInstance1(secretKey)).toBe(200)

      const revoked = await gql(h.app, { jwt: h.a.jwt }, `mutation($id: ID!) { revokeApiKey(keyPairId: $id) { revokedAt } }`, {
        id: keyPairId,
      })
      expect(revoked.body.data.revokeApiKey.revokedAt).toBeTruthy()
      const revokedAt = performance.now()

      let seen = await onInstance2(secretKey)
      while (seen !== 401 && performance.now() - revokedAt < 5000) {
        await Bun.sleep(250)
        seen = await onInstance2(secretKey)
      }
      const elapsed = performance.now() - revokedAt
      expect(await onInstance1(secretKey)).toBe(401)
      expect(seen).toBe(401)
      expect(elapsed).toBeLessThanOrEqual(5000)
    },
    15_000
  )
})
