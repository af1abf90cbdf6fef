import { describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDb } from '../../src/server/platform/db'
import { MigrationChangedError, migrate } from '../../src/server/platform/db/migrate'

// Checksums of applied migrations (issue 16: the runner kept none, so an edited 0003 went unnoticed).
async function withMigrations(fn: (dir: string, db: Awaited<ReturnType<typeof openDb>>) => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), 'bss-migrations-'))
  const db = await openDb({ dataDir: 'memory://' })
  try {
    await fn(dir, db)
  } finally {
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('migration checksums', () => {
  it("records each file's SHA-256, and refuses to start when an applied file changed", async () => {
    await withMigrations(async (dir, db) => {
      writeFileSync(join(dir, '0001_a.sql'), 'create table a (x int);')
      writeFileSync(join(dir, '0002_b.sql'), 'create table b (x int);')
      expect(await migrate(db, undefined, dir)).toEqual(['0001', '0002'])
      const rows = await db.sql`select version, checksum from schema_migrations order by version`
      for (const row of rows) expect(row.checksum).toMatch(/^[0-9a-f]{64}$/)
      expect(await migrate(db, undefined, dir)).toEqual([])

      writeFileSync(join(dir, '0001_a.sql'), 'create table a (x int, y int);')
      writeFileSync(join(dir, '0003_c.sql'), 'create table c (x int);')
      const error = await migrate(db, undefined, dir).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(MigrationChangedError)
      expect((error as Error).message).toContain('sql/0001_a.sql changed after it was applied')
      // Nothing after the refusal ran: 0003 is still pending.
      expect((await db.sql`select count(*)::int as n from schema_migrations`)[0]!.n).toBe(2)
      expect((await db.sql`select to_regclass('c') as t`)[0]!.t).toBeNull()
    })
  })

  it('fills in the checksum of rows applied before checksums were kept', async () => {
    await withMigrations(async (dir, db) => {
      writeFileSync(join(dir, '0001_a.sql'), 'create table a (x int);')
      await db.sql`create table schema_migrations (version text primary key, name text not null, applied_at timestamptz not null default now())`
      await db.sql`create table a (x int)`
      await db.sql`insert into schema_migrations (version, name) values ('0001', '0001_a.sql')`
      expect(await migrate(db, undefined, dir)).toEqual([])
      expect((await db.sql`select checksum from schema_migrations`)[0]!.checksum).toMatch(/^[0-9a-f]{64}$/)
      writeFileSync(join(dir, '0001_a.sql'), 'create table a (x bigint);')
      await expect(migrate(db, undefined, dir)).rejects.toBeInstanceOf(MigrationChangedError)
    })
  })
})
