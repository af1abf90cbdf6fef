import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createPartitionsAhead } from '../../src/server/modules/ingest'
import { createHarness, type Harness } from '../helpers/harness'
import { storedBatches } from '../helpers/stored-signals'
import { ingest, makeBatch, makeSignals, midMonth, rowCounts } from './support'

/** session_batches partitioned by the session's start, one UTC day per partition (0013). */
let h: Harness
beforeAll(async () => {
  h = await createHarness()
}, 60_000)
afterAll(() => h.close())

const DAY = 24 * 3600_000

async function partitionOf(orgId: string, sessionId: string): Promise<string[]> {
  const rows = await h.deps.db.sql<{ part: string }[]>`
    select tableoid::regclass::text as part from session_batches where org_id = ${orgId} and session_id = ${sessionId} order by seq`
  return rows.map((r) => r.part)
}

describe('session_batches day partitions', () => {
  it('a session that crosses midnight keeps its batches in its first day’s partition, and a retry after midnight is still recognised', async () => {
    const midnight = Date.parse(`${midMonth().toISOString().slice(0, 10)}T00:00:00Z`) + DAY
    h.clock.current = new Date(midnight - 30_000)
    const first = makeBatch(h, { signals: makeSignals(30) })
    expect((await ingest(h, h.a.publicKey, first)).status).toBe(202)
    h.clock.current = new Date(midnight + 10_000)
    const second = { ...first, captured_at: h.clock.now().toISOString(), signals: makeSignals(12, 50_000) }
    expect((await ingest(h, h.a.publicKey, second)).status).toBe(202)
    const before = await rowCounts(h, h.a)

    h.clock.advance(20_000)
    const retry = await ingest(h, h.a.publicKey, first)
    expect(retry.status).toBe(202)
    expect(retry.body.accepted).toBe(30)
    const again = await ingest(h, h.a.secretKey, second)
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ batches: 2, signals: 42 })
    expect(await rowCounts(h, h.a)).toEqual(before)

    const day = new Date(midnight - DAY).toISOString().slice(0, 10).replaceAll('-', '')
    expect(await partitionOf(h.a.orgId, first.session_id)).toEqual([`session_batches_${day}`, `session_batches_${day}`])
    // A session started after midnight goes to the new day.
    const next = makeBatch(h)
    expect((await ingest(h, h.a.publicKey, next)).status).toBe(202)
    const nextDay = new Date(midnight).toISOString().slice(0, 10).replaceAll('-', '')
    expect(await partitionOf(h.a.orgId, next.session_id)).toEqual([`session_batches_${nextDay}`])
  })

  it('the retry key holds inside a partition: the same batch of one session cannot be stored twice', async () => {
    const batch = makeBatch(h)
    expect((await ingest(h, h.a.publicKey, batch)).status).toBe(202)
    // What a second writer that missed the retry probe would do: another seq, a later arrival, the same hash.
    const attempt = h.deps.db.sql`
      insert into session_batches (org_id, session_id, seq, session_started_at, captured_at, batch_hash, signal_count, packed, received_at)
      select org_id, session_id, seq + 1, session_started_at, captured_at, batch_hash, signal_count, packed, received_at + interval '1 hour'
      from session_batches where org_id = ${h.a.orgId} and session_id = ${batch.session_id}`
    await expect(attempt).rejects.toMatchObject({ code: '23505' })
    expect((await storedBatches(h.deps.db.sql, h.a.orgId, batch.session_id)).length).toBe(1)
  })

  it('creates partitions ahead, and ingest creates a missing day’s partition itself', async () => {
    const far = new Date(midMonth().getTime() + 200 * DAY)
    const days = await createPartitionsAhead(h.deps.db, far, 2)
    expect(days).toHaveLength(3)
    const [{ n }] = await h.deps.db.sql<{ n: number }[]>`
      select count(*)::int as n from pg_class where relname = any(${days.map((d) => `session_batches_${d.replaceAll('-', '')}`)}::text[])`
    expect(n).toBe(3)

    h.clock.current = new Date(far.getTime() + 10 * DAY)
    const batch = makeBatch(h)
    expect((await ingest(h, h.b.publicKey, batch)).status).toBe(202)
    expect(await partitionOf(h.b.orgId, batch.session_id)).toEqual([
      `session_batches_${h.clock.now().toISOString().slice(0, 10).replaceAll('-', '')}`,
    ])
  })
})
