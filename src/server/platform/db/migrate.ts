import { createHash } from 'node:crypto'
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

/** A migration file that differs from the one applied: the schema no longer matches the files. */
export class MigrationChangedError extends Error {
  readonly code = 'MIGRATION_CHANGED'
}

const checksum = (text: string) => createHash('sha256').update(text).digest('hex')

/**
 * Applies pending migrations in order, once, even when several instances start together. Each
 * applied file's SHA-256 is recorded; a file edited after it was applied stops the start
 * (MigrationChangedError) rather than leaving databases that ran different versions of "0003".
 * Rows from before checksums were kept get the current file's (the first start after the upgrade
 * trusts the files, as the runner always did).
 */
export async function migrate(db: Db, log?: Logger, dir = SQL_DIR): Promise<string[]> {
  const applied: string[] = []
  await db.sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`
    await tx`create table if not exists schema_migrations (
      version text primary key, name text not null, applied_at timestamptz not null default now())`
    await tx`alter table schema_migrations add column if not exists checksum text`
    const done = new Map(
      (await tx<{ version: string; checksum: string | null }[]>`select version, checksum from schema_migrations`).map((r) => [
        r.version,
        r.checksum,
      ])
    )
    for (const m of listMigrations(dir)) {
      const text = readFileSync(m.file, 'utf8')
      const sum = checksum(text)
      const name = m.file.split('/').pop()!
      if (done.has(m.version)) {
        const recorded = done.get(m.version)
        if (recorded === null) await tx`update schema_migrations set checksum = ${sum} where version = ${m.version}`
        else if (recorded !== sum) {
          throw new MigrationChangedError(
            `sql/${name} changed after it was applied (applied sha256 ${recorded?.slice(0, 12)}…, file ${sum.slice(0, 12)}…): ` +
              'restore the file and put the change in a new migration'
          )
        }
        continue
      }
      await tx.unsafe(text)
      await tx`insert into schema_migrations (version, name, checksum) values (${m.version}, ${name}, ${sum})`
      applied.push(m.version)
      log?.info('migration applied', { version: m.version })
    }
  })
  return applied
}
