import { describe, expect, it } from 'bun:test'
import { openDb } from '../../src/server/platform/db'
import { listMigrations, migrate } from '../../src/server/platform/db/migrate'
import { createEmptyDatabase, dropDatabase, testDbKind } from '../helpers/db'

describe('migrations', () => {
  it('applies every numbered file once and records it', async () => {
    const db = await openDb({ dataDir: 'memory://' })
    try {
      const applied = await migrate(db)
      expect(applied).toEqual(listMigrations().map((m) => m.version))
      expect(await migrate(db)).toEqual([])
      const rows = await db.sql`select version from schema_migrations order by version`
      expect(rows.map((r) => r.version)).toEqual(applied)
    } finally {
      await db.close()
    }
  })

  it.skipIf(testDbKind() !== 'postgres')(
    'two instances starting at once on one empty PostgreSQL database both come up, and migrations run once',
    async () => {
      const url = await createEmptyDatabase()
      const [one, two] = await Promise.all([openDb({ url, poolMax: 2 }), openDb({ url, poolMax: 2 })])
      try {
        const [a, b] = await Promise.all([migrate(one), migrate(two)])
        // Exactly one instance applied everything; the other found it done after waiting on the lock.
        expect([a.length, b.length].sort()).toEqual([0, listMigrations().length])
        const [{ count }] = await one.sql`select count(*)::int as count from schema_migrations`
        expect(count).toBe(listMigrations().length)
        expect(await two.ping()).toBe(true)
      } finally {
        await Promise.all([one.close(), two.close()])
        await dropDatabase(url)
      }
    }
  )
})
