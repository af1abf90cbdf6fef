import postgres from 'postgres'
import { openDb, type Db } from '../../src/server/platform/db'
import { migrate } from '../../src/server/platform/db/migrate'

export type TestDbKind = 'pglite' | 'postgres'
export const testDbKind = (): TestDbKind => (process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite')
export const adminUrl = () => process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

export type TestDb = { db: Db; url?: string; drop(): Promise<void> }

/**
 * A fresh, migrated database for one test file: an in-memory PGlite, or a new database
 * on the PostgreSQL server (TEST_DB=postgres) that is dropped afterwards.
 */
export async function createTestDb(kind: TestDbKind = testDbKind()): Promise<TestDb> {
  if (kind === 'pglite') {
    const db = await openDb({ dataDir: 'memory://' })
    await migrate(db)
    return { db, drop: () => db.close() }
  }
  const url = await createEmptyDatabase()
  const db = await openDb({ url, poolMax: 10, timeoutMs: 5000 })
  await migrate(db)
  return {
    db,
    url,
    drop: async () => {
      await db.close()
      await dropDatabase(url)
    },
  }
}

/** A new empty database on the test server; its URL. */
export async function createEmptyDatabase(): Promise<string> {
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} })
  const name = `bss_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  try {
    await admin.unsafe(`create database ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(adminUrl())
  url.pathname = '/' + name
  return url.toString()
}

export async function dropDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1)
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`drop database if exists ${name} with (force)`)
  } finally {
    await admin.end()
  }
}
