import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { QUIET_MS, scoreQuietSessions } from '../../src/server/modules/ingest'
import { startBackgroundScorer } from '../../src/server/jobs/scorer'
import { createHarness, type Harness, type SeededOrg, tinyBatch } from '../helpers/harness'

/** The background scorer (issue 17): SDK sessions nobody GETs get a verdict once quiet for 30 s. */
let h: Harness
beforeAll(async () => {
  h = await createHarness()
}, 60_000)
afterAll(() => h?.close())

async function sdkBatch(org: SeededOrg, sessionId = crypto.randomUUID()) {
  const res = await h.json('POST', '/v1/ingest', { headers: { 'x-api-key': org.publicKey }, body: tinyBatch(h, { session_id: sessionId }) })
  expect(res.status).toBe(202)
  return sessionId
}

const rowOf = async (org: SeededOrg, id: string) => {
  const [row] = await h.deps.db.sql<{ verdict: string | null; scored_batches: number | null; batch_count: number; hcs: string | null }[]>`
    select verdict, scored_batches, batch_count, hcs from sessions where org_id = ${org.orgId} and session_id = ${id}`
  return row!
}

describe('background scorer', () => {
  it('scores quiet unscored sessions of every organization, at most `limit` per tick, oldest first; leaves recent ones', async () => {
    const a1 = await sdkBatch(h.a)
    h.clock.advance(1000)
    const b1 = await sdkBatch(h.b)
    h.clock.advance(1000)
    const a2 = await sdkBatch(h.a)
    h.clock.advance(QUIET_MS - 1500)
    // a1 is 30.5 s quiet, b1 29.5 s, a2 28.5 s
    const recent = await sdkBatch(h.a)
    expect((await rowOf(h.a, a1)).verdict).toBeNull()

    expect(await scoreQuietSessions(h.deps.db, h.clock.now(), 5)).toEqual({ scored: 1, failed: 0, errors: [] })
    expect((await rowOf(h.a, a1)).verdict).not.toBeNull()
    expect((await rowOf(h.b, b1)).verdict).toBeNull()

    h.clock.advance(2000)
    // b1 and a2 are now quiet; the limit takes the oldest only
    expect((await scoreQuietSessions(h.deps.db, h.clock.now(), 1)).scored).toBe(1)
    expect((await rowOf(h.b, b1)).verdict).not.toBeNull()
    expect((await rowOf(h.a, a2)).verdict).toBeNull()
    expect((await scoreQuietSessions(h.deps.db, h.clock.now(), 5)).scored).toBe(1)
    const scored = await rowOf(h.a, a2)
    expect(scored.scored_batches).toBe(scored.batch_count)
    expect(Number(scored.hcs)).toBeGreaterThanOrEqual(0)
    expect((await rowOf(h.a, recent)).verdict).toBeNull()
  })

  it('the stored score equals what GET /v1/session computes', async () => {
    h.clock.advance(QUIET_MS * 3)
    await scoreQuietSessions(h.deps.db, h.clock.now(), 100)
    const id = await sdkBatch(h.a)
    h.clock.advance(QUIET_MS + 1)
    await scoreQuietSessions(h.deps.db, h.clock.now(), 100)
    const stored = await rowOf(h.a, id)
    const got = await h.json('GET', `/v1/session/${id}`, { headers: { 'x-api-key': h.a.secretKey } })
    expect(got.status).toBe(200)
    expect(got.body.hcs).toBe(Number(stored.hcs))
    expect(got.body.verdict).toBe(stored.verdict!)
  })

  it('a new batch makes the score stale; it is rescored only after the session is quiet again', async () => {
    h.clock.advance(QUIET_MS * 3)
    await scoreQuietSessions(h.deps.db, h.clock.now(), 100)
    const id = await sdkBatch(h.a)
    h.clock.advance(QUIET_MS + 1)
    expect((await scoreQuietSessions(h.deps.db, h.clock.now(), 100)).scored).toBe(1)
    const res = await h.json('POST', '/v1/ingest', {
      headers: { 'x-api-key': h.a.publicKey },
      body: tinyBatch(h, { session_id: id, signals: [{ t: 40, k: 'mm', x: 9, y: 9 }] }),
    })
    expect(res.status).toBe(202)
    expect(await rowOf(h.a, id)).toMatchObject({ batch_count: 2, scored_batches: 1 })
    h.clock.advance(QUIET_MS - 1000)
    expect((await scoreQuietSessions(h.deps.db, h.clock.now(), 100)).scored).toBe(0)
    h.clock.advance(2000)
    expect((await scoreQuietSessions(h.deps.db, h.clock.now(), 100)).scored).toBe(1)
    expect(await rowOf(h.a, id)).toMatchObject({ batch_count: 2, scored_batches: 2 })
  })

  it('skips a session that fails to score, reports it, scores the others, and tries it again next tick', async () => {
    h.clock.advance(QUIET_MS * 3)
    await scoreQuietSessions(h.deps.db, h.clock.now(), 1000)
    const bad = await sdkBatch(h.a)
    h.clock.advance(1000)
    const good = await sdkBatch(h.b)
    // Stored bytes no decoder accepts: reading this session's signals throws.
    await h.deps.db.sql`update session_batches set packed = '\\x09'::bytea where org_id = ${h.a.orgId} and session_id = ${bad}`
    h.clock.advance(QUIET_MS + 1)

    const tick = await scoreQuietSessions(h.deps.db, h.clock.now(), 100)
    expect(tick.scored).toBe(1)
    expect(tick.failed).toBe(1)
    expect(tick.errors).toHaveLength(1)
    expect(tick.errors[0]).toStartWith(`${h.a.orgId}/${bad}: `)
    expect(tick.errors[0]).toContain('unknown format')
    expect((await rowOf(h.b, good)).verdict).not.toBeNull()
    expect(await rowOf(h.a, bad)).toMatchObject({ verdict: null, scored_batches: null, batch_count: 1 })
    // Still stale, so the next tick tries it again (and reports it again), and nothing else.
    const again = await scoreQuietSessions(h.deps.db, h.clock.now(), 100)
    expect(again).toMatchObject({ scored: 0, failed: 1 })
    await h.deps.db.sql`delete from sessions where org_id = ${h.a.orgId} and session_id = ${bad}`
  })

  it('nothing stale: a tick does nothing', async () => {
    h.clock.advance(QUIET_MS * 3)
    await scoreQuietSessions(h.deps.db, h.clock.now(), 1000)
    expect(await scoreQuietSessions(h.deps.db, h.clock.now(), 1000)).toEqual({ scored: 0, failed: 0, errors: [] })
  })

  it('the periodic job is not started in tests (they call the tick directly)', () => {
    const stop = startBackgroundScorer(h.deps)
    expect(typeof stop).toBe('function')
    stop()
  })
})
