import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { openDb, type Db } from '../../src/server/platform/db'
import { listMigrations, migrate } from '../../src/server/platform/db/migrate'
import { createOrganization, syncPlans } from '../../tenants/provision'
import { createEmptyDatabase, createTestDb, dropDatabase, type TestDb, testDbKind } from '../helpers/db'

/**
 * The foreign-key check every stored batch runs (sql/0017): PostgreSQL's own query for the key of
 * session_batches (and session_replay) on sessions, planned once per connection. Planned on an empty
 * sessions table, the indexes starting with org_id tie with the primary key and the newest wins; before
 * 0017 that was sessions_org_first_seen_idx, where session_id is no bound, so each check read every
 * entry of the organization. A later index on sessions starting with org_id would bring that back.
 */
const RI_CHECK =
  'SELECT 1 FROM ONLY "public"."sessions" x WHERE "org_id" OPERATOR(pg_catalog.=) $1 AND "session_id" OPERATOR(pg_catalog.=) $2 FOR KEY SHARE OF x'
const SESSIONS = 3000

/** The check planned while sessions is empty, then run once the organization has SESSIONS sessions: the index it used and the buffers it read. */
async function checkOnGrownTable(db: Db): Promise<{ index: string; buffers: number }> {
  const orgId = await createOrganization(db.sql, { name: 'Grown', planId: 'enterprise' })
  const month = `${new Date().toISOString().slice(0, 7)}-01`
  const plan = await db.sql.begin(async (tx) => {
    await tx`set local plan_cache_mode = force_generic_plan`
    await tx.unsafe(`prepare fk_check(uuid, uuid) as ${RI_CHECK}`)
    // planned now, while sessions is empty, as the first batch of a new database plans it
    await tx.unsafe('explain execute fk_check(gen_random_uuid(), gen_random_uuid())')
    await tx`
      insert into sessions (org_id, session_id, sdk_type, usage_month)
      select ${orgId}::uuid, gen_random_uuid(), 'web', ${month}::date from generate_series(1, ${SESSIONS}::int)`
    const [{ session_id }] = await tx<{ session_id: string }[]>`select session_id from sessions where org_id = ${orgId} limit 1`
    const rows = await tx.unsafe(`explain (analyze, buffers, costs off, timing off) execute fk_check('${orgId}', '${session_id}')`)
    await tx.unsafe('deallocate fk_check')
    return rows.map((r) => r['QUERY PLAN'] as string).join('\n')
  })
  const index = plan.match(/Index (?:Only )?Scan using (\S+) on sessions/)?.[1] ?? plan
  const buffers = Number(plan.match(/Index (?:Only )?Scan[^\n]*\n(?:[^\n]*\n)*?\s*Buffers: shared hit=(\d+)/)?.[1] ?? Number.NaN)
  return { index, buffers }
}

/** Indexes on sessions that start with org_id, whole-table (a partial one cannot serve the check), created after the primary key: each would win the tie. */
const newerOrgIndexes = async (db: Db) =>
  (
    await db.sql<{ name: string }[]>`
      select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid
      where i.indrelid = 'sessions'::regclass and c.oid > 'sessions_pkey'::regclass and i.indpred is null
        and i.indkey[0] = (select attnum from pg_attribute where attrelid = 'sessions'::regclass and attname = 'org_id')`
  ).map((r) => r.name)

/** The foreign keys on sessions: which table, and whether a deleted session takes its rows along. */
const foreignKeys = async (db: Db) =>
  (
    await db.sql<{ tbl: string; cascade: boolean }[]>`
      select conrelid::regclass::text as tbl, confdeltype = 'c' as cascade from pg_constraint
      where confrelid = 'sessions'::regclass and contype = 'f' and conparentid = 0 order by 1`
  ).map((r) => `${r.tbl}${r.cascade ? ' on delete cascade' : ''}`)

describe('the batches’ foreign-key check on sessions', () => {
  let t: TestDb
  beforeAll(async () => {
    t = await createTestDb()
    await syncPlans(t.db.sql)
  }, 60_000)
  afterAll(() => t.drop())

  it('probes the primary key when planned on an empty table, so it reads a few pages whatever the organization’s size', async () => {
    const { index, buffers } = await checkOnGrownTable(t.db)
    expect(index).toBe('sessions_pkey')
    expect(buffers).toBeLessThanOrEqual(4)
  })

  it('no index on sessions starting with org_id is newer than the primary key (the tie would go to it)', async () => {
    expect(await newerOrgIndexes(t.db)).toEqual([])
  })

  it('keeps the foreign keys on sessions', async () => {
    expect(await foreignKeys(t.db)).toEqual(['session_batches on delete cascade', 'session_replay on delete cascade'])
  })
})

describe('0017 on a database already past 0020 (the upgrade)', () => {
  let db: Db
  let url: string | undefined
  let orgId: string
  const session = crypto.randomUUID()
  beforeAll(async () => {
    url = testDbKind() === 'postgres' ? await createEmptyDatabase() : undefined
    db = await openDb(url ? { url, poolMax: 10, timeoutMs: 5000 } : { dataDir: 'memory://' })
    const before = mkdtempSync(join(tmpdir(), 'bss-sql-'))
    for (const m of listMigrations().filter((m) => m.version !== '0017')) copyFileSync(m.file, join(before, basename(m.file)))
    await migrate(db, undefined, before)
    rmSync(before, { recursive: true })
    await syncPlans(db.sql)
    orgId = await createOrganization(db.sql, { name: 'Upgrade', planId: 'enterprise' })
    const now = new Date()
    await db.sql`select session_batches_add_partition(${now.toISOString().slice(0, 10)}::date)`
    await db.sql`
      insert into sessions (org_id, session_id, sdk_type, usage_month, first_seen_at, batch_count, signal_count)
      values (${orgId}, ${session}, 'web', ${`${now.toISOString().slice(0, 7)}-01`}::date, ${now}, 1, 1)`
    await db.sql`
      insert into session_batches (org_id, session_id, seq, session_started_at, captured_at, batch_hash, signal_count, packed)
      values (${orgId}, ${session}, 1, ${now}, ${now}, 'p1:x', 1, '\\x00'::bytea)`
    await db.sql`insert into session_replay (org_id, session_id, session_started_at, material) values (${orgId}, ${session}, ${now}, '\\x00'::bytea)`
    expect(await migrate(db)).toEqual(['0017'])
  }, 60_000)
  afterAll(async () => {
    await db.close()
    if (url) await dropDatabase(url)
  })

  it('keeps the rows and the foreign keys, which still refuse an orphan and still cascade', async () => {
    expect(await foreignKeys(db)).toEqual(['session_batches on delete cascade', 'session_replay on delete cascade'])
    const [{ n }] = await db.sql<{ n: number }[]>`select count(*)::int as n from session_batches where session_id = ${session}`
    expect(n).toBe(1)
    const orphan = db.sql`
      insert into session_batches (org_id, session_id, seq, session_started_at, captured_at, batch_hash, signal_count, packed)
      values (${orgId}, ${crypto.randomUUID()}, 1, now(), now(), 'p1:y', 1, '\\x00'::bytea)`
    await expect(orphan).rejects.toMatchObject({ code: '23503' })
    await db.sql`delete from sessions where org_id = ${orgId} and session_id = ${session}`
    const [left] = await db.sql<{ batches: number; replay: number }[]>`
      select (select count(*)::int from session_batches) as batches, (select count(*)::int from session_replay) as replay`
    expect(left).toEqual({ batches: 0, replay: 0 })
  })

  it('and leaves the primary key the newest index on sessions starting with org_id', async () => {
    expect(await newerOrgIndexes(db)).toEqual([])
  })
})
