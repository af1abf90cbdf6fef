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

async function storedSignals(orgId: string, sessionId: string) {
  const rows = await storedBatches(h.deps.db.sql, orgId, sessionId)
  return rows.map((r) => ({ seq: r.seq, count: r.signal_count, kept: r.signals !== null }))
}

describe('retention of raw signals', () => {
  it('drops raw signals older than the retention period in chunks, keeping counts and results', async () => {
    const old = makeBatch(h, { signals: makeSignals(30) })
    await ingest(h, h.a.secretKey, old)
    for (let i = 1; i <= 4; i++) {
      h.clock.advance(60_000)
      await ingest(h, h.a.secretKey, { ...old, captured_at: h.clock.now().toISOString(), signals: makeSignals(10, i * 10_000) })
    }
    const result = (await h.json('GET', `/v1/session/${old.session_id}`, { headers: withKey(h.a.secretKey) })).body
    h.clock.advance(29 * DAY)
    const recent = makeBatch(h, { signals: makeSignals(20) })
    await ingest(h, h.b.secretKey, recent)

    expect(await purgeOldSignals(h.deps.db, h.clock.now(), 30, 2)).toBe(0)
    h.clock.advance(DAY + 60_000)
    expect(await purgeOldSignals(h.deps.db, h.clock.now(), 30, 2)).toBe(5)

    expect(await storedSignals(h.a.orgId, old.session_id)).toEqual(
      [1, 2, 3, 4, 5].map((seq) => ({ seq, count: seq === 1 ? 30 : 10, kept: false }))
    )
    expect(await storedSignals(h.b.orgId, recent.session_id)).toEqual([{ seq: 1, count: 20, kept: true }])
    const after = await h.json('GET', `/v1/session/${old.session_id}`, { headers: withKey(h.a.secretKey) })
    expect(after.body).toEqual(result)
    expect(await purgeOldSignals(h.deps.db, h.clock.now(), 30, 2)).toBe(0)
  })

  it('scores a session nobody read before its signals are purged, so its result still covers them', async () => {
    // Public-key batches only: stored, never scored (issue 14: the score is computed when asked for).
    const batch = makeBatch(h, { signals: makeSignals(40) })
    await ingest(h, h.a.publicKey, batch)
    h.clock.advance(60_000)
    await ingest(h, h.a.publicKey, { ...batch, captured_at: h.clock.now().toISOString(), signals: makeSignals(25, 10_000) })
    const rows = await storedBatches(h.deps.db.sql, h.a.orgId, batch.session_id)
    const expected = scoreSession({ signals: rows.flatMap((r) => r.signals ?? []), clientFeatures: FEATURES, replayed: false })

    h.clock.advance(31 * DAY)
    expect(await purgeOldSignals(h.deps.db, h.clock.now(), 30)).toBeGreaterThanOrEqual(2)
    expect((await storedSignals(h.a.orgId, batch.session_id)).map((b) => b.kept)).toEqual([false, false])
    const read = await h.json('GET', `/v1/session/${batch.session_id}`, { headers: withKey(h.a.secretKey) })
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({ ...expected, signals: 65, batches: 2 })
  })
})
