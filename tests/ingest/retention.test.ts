import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { purgeOldSignals } from '../../src/server/modules/ingest/service'
import { scoreSession } from '../../src/scoring/service'
import { createHarness, type Harness } from '../helpers/harness'
import { storedBatches } from '../helpers/stored-signals'
import { FEATURES, ingest, makeBatch, makeSignals, midMonth, withKey } from './support'

let h: Harness
beforeAll(async () => {
  h = await createHarness()
  h.clock.current = midMonth()
}, 60_000)
afterAll(() => h.close())

const DAY = 24 * 3600_000
const dayOf = (d: Date) => d.toISOString().slice(0, 10)

/** Whether session_batches has the partition of this day (a table of its own, 0013). */
async function hasPartition(day: string): Promise<boolean> {
  const rows = await h.deps.db.sql`
    select 1 from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'session_batches'::regclass and c.relname = ${`session_batches_${day.replaceAll('-', '')}`}`
  return rows.length > 0
}

const sessionRow = async (orgId: string, id: string) => {
  const [row] = await h.deps.db.sql<{ batch_count: number; signal_count: number }[]>`
    select batch_count, signal_count from sessions where org_id = ${orgId} and session_id = ${id}`
  return row
}

describe('retention of raw signals by dropping day partitions', () => {
  it('drops the partition of a day once all its batches are older than the retention period, keeping sessions and results', async () => {
    const day = dayOf(h.clock.now())
    const old = makeBatch(h, { signals: makeSignals(30) })
    await ingest(h, h.a.secretKey, old)
    for (let i = 1; i <= 4; i++) {
      h.clock.advance(60_000)
      await ingest(h, h.a.secretKey, { ...old, captured_at: h.clock.now().toISOString(), signals: makeSignals(10, i * 10_000) })
    }
    const result = (await h.json('GET', `/v1/session/${old.session_id}`, { headers: withKey(h.a.secretKey) })).body
    h.clock.advance(29 * DAY)
    const recentDay = dayOf(h.clock.now())
    const recent = makeBatch(h, { signals: makeSignals(20) })
    await ingest(h, h.b.secretKey, recent)
    expect(await hasPartition(day)).toBe(true)

    // 30 days after the batches, but the day's sessions could take batches until 00:30 the next day.
    expect(await purgeOldSignals(h.deps.db, h.clock.now(), 30)).toEqual([])
    h.clock.current = new Date(Date.parse(`${day}T00:00:00Z`) + 31 * DAY + 30 * 60_000)
    expect(await purgeOldSignals(h.deps.db, h.clock.now(), 30)).toContain(day)

    expect(await hasPartition(day)).toBe(false)
    expect(await hasPartition(recentDay)).toBe(true)
    expect(await storedBatches(h.deps.db.sql, h.a.orgId, old.session_id)).toEqual([])
    expect(await sessionRow(h.a.orgId, old.session_id)).toEqual({ batch_count: 5, signal_count: 70 })
    expect((await storedBatches(h.deps.db.sql, h.b.orgId, recent.session_id)).map((b) => b.signals?.length)).toEqual([20])
    const after = await h.json('GET', `/v1/session/${old.session_id}`, { headers: withKey(h.a.secretKey) })
    expect(after.body).toEqual(result)
    expect(await purgeOldSignals(h.deps.db, h.clock.now(), 30)).toEqual([])
  })

  it('scores a session nobody read before its partition goes, so its result still covers its signals', async () => {
    // Public-key batches only: stored, never scored (issue 14: the score is computed when asked for).
    const day = dayOf(h.clock.now())
    const batch = makeBatch(h, { signals: makeSignals(40) })
    await ingest(h, h.a.publicKey, batch)
    h.clock.advance(60_000)
    await ingest(h, h.a.publicKey, { ...batch, captured_at: h.clock.now().toISOString(), signals: makeSignals(25, 10_000) })
    const rows = await storedBatches(h.deps.db.sql, h.a.orgId, batch.session_id)
    const expected = scoreSession({ signals: rows.flatMap((r) => r.signals ?? []), clientFeatures: FEATURES, replayed: false })

    h.clock.advance(32 * DAY)
    expect(await purgeOldSignals(h.deps.db, h.clock.now(), 30)).toContain(day)
    expect(await storedBatches(h.deps.db.sql, h.a.orgId, batch.session_id)).toEqual([])
    const read = await h.json('GET', `/v1/session/${batch.session_id}`, { headers: withKey(h.a.secretKey) })
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({ ...expected, signals: 65, batches: 2 })
  })

  it('keeps the partition of a day whose unscored session fails to score, and drops the others', async () => {
    const badDay = dayOf(h.clock.now())
    const bad = makeBatch(h, { signals: makeSignals(10) })
    await ingest(h, h.a.publicKey, bad)
    // Bytes no decoder accepts: scoring this session throws.
    await h.deps.db.sql`update session_batches set packed = '\\x09'::bytea where org_id = ${h.a.orgId} and session_id = ${bad.session_id}`
    h.clock.advance(DAY)
    const goodDay = dayOf(h.clock.now())
    const good = makeBatch(h, { signals: makeSignals(10) })
    await ingest(h, h.b.publicKey, good)

    h.clock.advance(32 * DAY)
    const dropped = await purgeOldSignals(h.deps.db, h.clock.now(), 30)
    expect(dropped).toContain(goodDay)
    expect(dropped).not.toContain(badDay)
    expect(await hasPartition(badDay)).toBe(true)
    expect(await storedBatches(h.deps.db.sql, h.b.orgId, good.session_id)).toEqual([])
    const scored = await h.json('GET', `/v1/session/${good.session_id}`, { headers: withKey(h.b.secretKey) })
    expect(scored.status).toBe(200)
    expect(scored.body.batches).toBe(1)
  })
})
