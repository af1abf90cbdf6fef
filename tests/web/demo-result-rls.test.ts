import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getSessionResult } from '../../src/server/modules/ingest'
import { findScoredSession } from '../../src/server/modules/ingest/repo'
import type { Db, Sql } from '../../src/server/platform/db'
import { createTestDb, type TestDb } from '../helpers/db'
import { createHarness, type Harness, tinyBatch } from '../helpers/harness'

// The public demo page reads a session result: it must do so in the demo organization's row-level-security
// scope (db.tenant), never with the connection's own role, for which row-level security does not apply.

/** The test database, except that a query naming `sessions` outside db.tenant fails (and is counted). */
function tenantOnlySessions(db: Db, seen: { outside: string[]; tenants: string[] }): Db {
  const sql = new Proxy(db.sql, {
    apply(target, thisArg, args) {
      const text = Array.isArray(args[0]) ? (args[0] as string[]).join('?') : ''
      if (/\bsessions\b/.test(text)) {
        seen.outside.push(text.replace(/\s+/g, ' ').trim())
        throw new Error('sessions read outside db.tenant')
      }
      return Reflect.apply(target as any, thisArg, args)
    },
  }) as Sql
  return {
    ...db,
    kind: db.kind,
    sql,
    tenant(orgId, fn) {
      seen.tenants.push(orgId)
      return db.tenant(orgId, fn)
    },
    ping: () => db.ping(),
    close: () => db.close(),
  }
}

let h: Harness
let testDb: TestDb
let dataDir: string
const seen = { outside: [] as string[], tenants: [] as string[] }

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'bss-web-rls-'))
  const real = await createTestDb()
  testDb = { ...real, db: tenantOnlySessions(real.db, seen) }
  h = await createHarness({ testDb, env: { DATA_DIR: dataDir, RATE_LIMIT_IP_PER_MIN: '1000' } })
  writeFileSync(join(dataDir, 'demo-credentials.json'), JSON.stringify({ org_id: h.a.orgId }))
}, 60_000)
afterAll(async () => {
  await h.close() // drops testDb too
  rmSync(dataDir, { recursive: true, force: true })
}, 60_000)

async function ingest(key: string, sessionId: string) {
  return h.json('POST', '/v1/ingest', { headers: { 'x-api-key': key }, body: tinyBatch(h, { session_id: sessionId, sdk_type: 'web' }) })
}

describe('GET /demo/result/:session_id and row-level security', () => {
  it('reads the session inside the demo organization’s db.tenant scope, never outside it', async () => {
    const sessionId = crypto.randomUUID()
    expect((await ingest(h.a.publicKey, sessionId)).status).toBe(202)
    seen.tenants.length = 0
    const res = await h.json('GET', `/demo/result/${sessionId}`)
    expect(res.status).toBe(200)
    expect(res.body.session_id).toBe(sessionId)
    expect(seen.outside).toEqual([])
    expect(seen.tenants).toContain(h.a.orgId)
    expect(seen.tenants.every((org) => org === h.a.orgId)).toBe(true)
  })

  it('the lookup it uses is bounded by row-level security, not only by its where clause', async () => {
    const sessionId = crypto.randomUUID()
    expect((await ingest(h.b.secretKey, sessionId)).status).toBe(200)
    const db = testDb.db
    // In org B's own scope the row is there; under org A's scope the same query for org B's row finds nothing.
    expect(await db.tenant(h.b.orgId, (tx) => findScoredSession(tx, h.b.orgId, sessionId))).not.toBeNull()
    expect(await db.tenant(h.a.orgId, (tx) => findScoredSession(tx, h.b.orgId, sessionId))).toBeNull()
    // Inside db.tenant the query runs as the tenant role.
    const [{ role }] = await db.tenant(h.a.orgId, (tx) => tx<{ role: string }[]>`select current_user as role`)
    expect(role).toBe('bss_tenant')
    expect(await getSessionResult(db, h.a.orgId, sessionId)).toBeNull()
    expect((await getSessionResult(db, h.b.orgId, sessionId))?.session_id).toBe(sessionId)
  })
})
