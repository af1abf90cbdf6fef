import { afterAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { openDb } from '../../src/server/platform/db'
import { migrate } from '../../src/server/platform/db/migrate'
import { gql } from '../graphql/gql'
import { createEmptyDatabase, createTestDb, dropDatabase, testDbKind } from '../helpers/db'
import { createHarness } from '../helpers/harness'
import { TcpProxy } from '../helpers/tcp-proxy'

/**
 * Issue 15, finding 7: while the database was down /graphql answered 503 with the REST envelope
 * ({"error": …}), because the dashboard JWT's membership lookup runs before Yoga and its failure
 * went to the REST error handler. The contract wants a GraphQL body coded UNAVAILABLE, with
 * Retry-After.
 */
setDefaultTimeout(60_000)
const onPostgres = testDbKind() === 'postgres'
const cleanups: (() => Promise<void> | void)[] = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})

const QUERY = '{ listApiKeys { keyPairId } }'

function expectUnavailable(res: { status: number; body: any; headers: Headers }) {
  expect(res.status).toBe(503)
  expect(res.headers.get('content-type')).toContain('application/json')
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
  expect(res.body.error).toBeUndefined()
  expect(res.body.errors).toHaveLength(1)
  expect(res.body.errors[0].extensions).toEqual({ code: 'UNAVAILABLE' })
  expect(res.body.errors[0].message).not.toMatch(/ECONN|CONNECTION|postgres|select/i)
}

describe('GraphQL while the database is unavailable', () => {
  it(`connection pool gone (${testDbKind()}): 503 with a GraphQL UNAVAILABLE body and Retry-After`, async () => {
    const testDb = await createTestDb()
    const h = await createHarness({ testDb: { db: testDb.db, drop: async () => {} } })
    cleanups.push(async () => {
      await h.close()
      await testDb.drop().catch(() => {})
    })
    expect((await gql(h.app, { jwt: h.a.jwt }, QUERY)).status).toBe(200)
    // Every later query fails as on a lost server (CONNECTION_ENDED), beginning with the JWT's membership lookup.
    await testDb.db.close()
    const res = await gql(h.app, { jwt: h.a.jwt }, QUERY)
    expectUnavailable(res)
    expect(h.logs.some((l) => l.includes('database unavailable'))).toBe(true)
  })

  it.skipIf(!onPostgres)(
    'connections cut through a proxy (PostgreSQL): 503 UNAVAILABLE within the timeout, then answers again',
    async () => {
      const url = await createEmptyDatabase()
      const proxy = new TcpProxy('127.0.0.1', Number(new URL(url).port || 5432))
      const proxied = new URL(url)
      proxied.port = String(proxy.start())
      const db = await openDb({ url: proxied.toString(), poolMax: 4, timeoutMs: 2000 })
      await migrate(db)
      const h = await createHarness({ testDb: { db, drop: () => db.close() }, env: { DB_TIMEOUT_MS: '2000' } })
      cleanups.push(
        () => h.close(),
        () => dropDatabase(url),
        () => proxy.stop()
      )
      expect((await gql(h.app, { jwt: h.a.jwt }, QUERY)).status).toBe(200)

      proxy.cut()
      const timings: number[] = []
      for (let i = 0; i < 5; i++) {
        const started = performance.now()
        const res = await gql(h.app, { jwt: i % 2 ? h.a.jwt : h.b.jwt }, QUERY)
        timings.push(performance.now() - started)
        expectUnavailable(res)
      }
      console.log(`[graphql-outage] 5 queries during the outage: all 503 UNAVAILABLE, slowest ${Math.max(...timings).toFixed(0)} ms`)
      expect(Math.max(...timings)).toBeLessThan(2000 + 1500)

      proxy.restore()
      const deadline = Date.now() + 15_000
      let status = 0
      while (Date.now() < deadline) {
        status = (await gql(h.app, { jwt: h.a.jwt }, QUERY)).status
        if (status === 200) break
        await Bun.sleep(200)
      }
      expect(status).toBe(200)
    }
  )
})
