import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Db } from './index'
import type { Logger } from '../log'

const SQL_DIR = join(import.meta.dir, '..', '..', '..', '..', 'sql')
// Arbitrary constant shared by every instance: whoever holds it migrates, the others wait.
const MIGRATION_LOCK_ID = 727_274_001

export type Migration = { version: string; file: string }

export function listMigrations(dir = SQL_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: file.slice(0, 4), file: join(dir, file) }))
}

/** Applies pending migrations in order, once, even when several instances start together. */
export async function migrate(db: Db, log?: Logger, dir = SQL_DIR): Promise<string[]> {
  const applied: string[] = []
  await db.sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`
    await tx`create table if not exists schema_migrations (
      version text primary key, name text not null, applied_at timestamptz not null default now())`
    const done = new Set((await tx<{ version: string }[]>`select version from schema_migrations`).map((r) => r.version))
    for (const m of listMigrations(dir)) {
      if (done.has(m.version)) continue
      await tx.unsafe(readFileSync(m.file, 'utf8'))
      await tx`insert into schema_migrations (version, name) values (${m.version}, ${m.file.split('/').pop()!})`
      applied.push(m.version)
      log?.info('migration applied', { version: m.version })
    }
  })
  return applied
}
