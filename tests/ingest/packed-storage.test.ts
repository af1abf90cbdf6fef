import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { scoreSession } from '../../src/scoring/service'
import type { Signal } from '../../src/scoring/signals'
import { createKeyPair } from '../../src/server/modules/keys/service'
import * as repo from '../../src/server/modules/ingest/repo'
import { openDb } from '../../src/server/platform/db'
import { listMigrations, migrate } from '../../src/server/platform/db/migrate'
import { createOrganization, syncPlans } from '../../tenants/provision'
import { createEmptyDatabase, dropDatabase, testDbKind } from '../helpers/db'
import { createHarness, type Harness } from '../helpers/harness'
import { storedBatches } from '../helpers/stored-signals'
import { FEATURES, ingest, makeSignals, midMonth, withKey } from './support'

/**
 * Packed storage (migration 0012): new batches are stored as `packed` bytes, and batches written as
 * JSONB before the migration stay readable by every reader (scoring, the dashboard, the export), mixed
 * with packed ones in one session; a retry of a pre-migration batch is still recognised.
 */
let h: Harness
let orgId: string
let secretKey: string
const legacySession = crypto.randomUUID()
const legacySignals = makeSignals(40) as Signal[]
const legacyCapturedAt = new Date(midMonth().getTime() - 60_000)

beforeAll(async () => {
  const url = testDbKind() === 'postgres' ? await createEmptyDatabase() : undefined
  const db = await openDb(url ? { url, poolMax: 10, timeoutMs: 5000 } : { dataDir: 'memory://' })
  // The schema as it was before 0012, from the files up to 0011.
  const before = mkdtempSync(join(tmpdir(), 'bss-sql-'))
  for (const m of listMigrations().filter((m) => m.version < '0012')) copyFileSync(m.file, join(before, basename(m.file)))
  await migrate(db, undefined, before)
  rmSync(before, { recursive: true })
  await syncPlans(db.sql)
  orgId = await createOrganization(db.sql, { name: 'Legacy', planId: 'enterprise' })
  secretKey = (await createKeyPair(db.sql, orgId, { name: 'k', sdkType: 'web' })).secretKey
  // A session and its first batch exactly as the code before 0012 wrote them (JSONB, same hash rule).
  const json = JSON.stringify(legacySignals)
  const hash = new Bun.CryptoHasher('sha256').update(`${legacyCapturedAt.toISOString()}\n${json}`).digest('hex')
  await db.sql`
    insert into sessions (org_id, session_id, sdk_type, usage_month, first_seen_at, last_batch_at, batch_count, signal_count, client_features)
    values (${orgId}, ${legacySession}, 'web', ${`${midMonth().toISOString().slice(0, 8)}01`}, ${legacyCapturedAt}, ${legacyCapturedAt}, 1, 40, ${FEATURES}::float8[])`
  await db.sql`
    insert into session_batches (org_id, session_id, seq, captured_at, batch_hash, signal_count, signals, received_at)
    values (${orgId}, ${legacySession}, 1, ${legacyCapturedAt}, ${hash}, 40, ${json}::text::jsonb, ${legacyCapturedAt})`
  await migrate(db)
  h = await createHarness({
    testDb: {
      db,
      url,
      drop: async () => {
        await db.close()
        if (url) await dropDatabase(url)
      },
    },
  })
  h.clock.current = midMonth()
}, 60_000)
afterAll(() => h?.close())

describe('packed signal storage (0012)', () => {
  it('stores a new batch packed, not as JSON, in a fraction of the bytes', async () => {
    const id = crypto.randomUUID()
    const signals = makeSignals(200)
    const res = await ingest(h, h.a.publicKey, {
      session_id: id,
      sdk_type: 'web',
      captured_at: h.clock.now().toISOString(),
      signals,
      features: FEATURES,
    })
    expect(res.status).toBe(202)
    const [row] = await h.deps.db.sql<{ json: boolean; bytes: number }[]>`
      select signals is not null as json, octet_length(packed) as bytes from session_batches where org_id = ${h.a.orgId} and session_id = ${id}`
    expect(row!.json).toBe(false)
    expect(row!.bytes).toBeLessThan(JSON.stringify(signals).length / 4)
    expect((await storedBatches(h.deps.db.sql, h.a.orgId, id))[0]!.signals).toEqual(signals as Signal[])
  })

  it('reads a JSONB batch from before the migration next to a packed one: score, dashboard reads, retry', async () => {
    const next = makeSignals(30, 20_000, 2) as Signal[]
    const features = FEATURES.map((f) => f / 2)
    const body = { session_id: legacySession, sdk_type: 'web', captured_at: h.clock.now().toISOString(), signals: next, features }
    const res = await ingest(h, secretKey, body)
    expect(res.status).toBe(200)
    const expected = scoreSession({ signals: [...legacySignals, ...next], clientFeatures: features, replayed: false })
    expect(res.body).toMatchObject({ hcs: expected.hcs, m3_score: expected.m3_score, verdict: expected.verdict, batches: 2, signals: 70 })

    const stored = await h.deps.db.sql<{ seq: number; json: boolean; packed: boolean }[]>`
      select seq, signals is not null as json, packed is not null as packed from session_batches
      where org_id = ${orgId} and session_id = ${legacySession} order by seq`
    expect([...stored]).toEqual([
      { seq: 1, json: true, packed: false },
      { seq: 2, json: false, packed: true },
    ])
    // What the GraphQL session view and the NDJSON export read.
    const read = await h.deps.db.tenant(orgId, async (tx) => ({
      one: await repo.sessionBatches(tx, orgId, legacySession),
      many: await repo.batchesOf(tx, orgId, [legacySession]),
    }))
    expect(read.one).toEqual([legacySignals, next])
    expect(read.many.get(legacySession)).toEqual([legacySignals, next])

    // A retry of the batch stored before the migration is recognised (same hash rule), not appended.
    const retry = await ingest(h, secretKey, {
      session_id: legacySession,
      sdk_type: 'web',
      captured_at: legacyCapturedAt.toISOString(),
      signals: legacySignals,
      features: FEATURES,
    })
    expect(retry.status).toBe(200)
    expect(retry.body.batches).toBe(2)
    const got = await h.json('GET', `/v1/session/${legacySession}`, { headers: withKey(secretKey) })
    expect(got.body.signals).toBe(70)
  })
})
