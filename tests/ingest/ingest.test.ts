import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { nextMonthStartUtc, secondsUntil } from '../../src/server/platform/clock'
import { createHarness, type Harness } from '../helpers/harness'
import { SESSION_RESULT_KEYS, ingest, makeBatch, makeSignals, midMonth, rowCounts, withKey } from './support'

let h: Harness
beforeAll(async () => {
  h = await createHarness()
  h.clock.current = midMonth()
}, 60_000)
afterAll(() => h.close())

const getSession = (key: string, id: string) => h.json('GET', `/v1/session/${id}`, { headers: withKey(key) })

describe('POST /v1/ingest responses', () => {
  it('answers a secret key 200 with the full session result, the same as GET /v1/session', async () => {
    const batch = makeBatch(h)
    const res = await ingest(h, h.a.secretKey, batch)
    expect(res.status).toBe(200)
    expect(Object.keys(res.body).sort()).toEqual(SESSION_RESULT_KEYS)
    expect(res.body).toMatchObject({ session_id: batch.session_id, signals: 50, batches: 1, first_seen_at: h.clock.now().toISOString() })
    expect(res.body.hcs).toBeGreaterThanOrEqual(0)
    expect(res.body.hcs).toBeLessThanOrEqual(100)
    expect(Math.round(res.body.hcs * 10) / 10).toBe(res.body.hcs)
    expect(Math.round(res.body.m3_score * 10_000) / 10_000).toBe(res.body.m3_score)
    expect(['human_verified', 'suspicious', 'bot', 'insufficient_data']).toContain(res.body.verdict)
    expect(res.body.scored_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    const fetched = await getSession(h.a.secretKey, batch.session_id)
    expect(fetched.status).toBe(200)
    expect(fetched.body).toEqual(res.body)
  })

  it('answers a public key 202 with the accepted count and no score', async () => {
    const batch = makeBatch(h, { signals: makeSignals(37) })
    const res = await ingest(h, h.a.publicKey, batch)
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ session_id: batch.session_id, accepted: 37 })
    // Stored and scored all the same: the backend reads it with the secret key.
    expect((await getSession(h.a.secretKey, batch.session_id)).body.signals).toBe(37)
  })

  it('takes a public key in ?key= with a text/plain body (navigator.sendBeacon)', async () => {
    const batch = makeBatch(h)
    const res = await h.json('POST', `/v1/ingest?key=${h.a.publicKey}`, {
      rawBody: JSON.stringify(batch),
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    })
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ session_id: batch.session_id, accepted: 50 })
    expect(res.headers.get('x-quota-limit')).toBe('1000')
  })

  it('never takes a secret key in the URL', async () => {
    const res = await h.json('POST', `/v1/ingest?key=${h.a.secretKey}`, {
      rawBody: JSON.stringify(makeBatch(h)),
      headers: { 'content-type': 'text/plain' },
    })
    expect(res.status).toBe(401)
  })

  it('carries X-Quota-Limit, -Remaining and -Reset; only a new session spends one', async () => {
    const reset = String(secondsUntil(nextMonthStartUtc(h.clock.now()), h.clock.now()))
    const first = makeBatch(h)
    const a = await ingest(h, h.a.secretKey, first)
    const used = (await rowCounts(h, h.a)).used
    expect(a.headers.get('x-quota-limit')).toBe('1000')
    expect(a.headers.get('x-quota-remaining')).toBe(String(1000 - used))
    expect(a.headers.get('x-quota-reset')).toBe(reset)
    const more = await ingest(h, h.a.secretKey, { ...first, captured_at: h.clock.now().toISOString(), signals: makeSignals(5, 5000) })
    expect(more.status).toBe(200)
    expect(more.headers.get('x-quota-remaining')).toBe(String(1000 - used))
    const other = await ingest(h, h.a.publicKey, makeBatch(h))
    expect(other.headers.get('x-quota-remaining')).toBe(String(1000 - used - 1))
    expect(other.headers.get('x-quota-reset')).toBe(reset)
  })
})

describe('sessions of several batches', () => {
  it('appends batches in order and scores the session over all of them', async () => {
    const batch = makeBatch(h, { signals: makeSignals(40) })
    await ingest(h, h.a.secretKey, batch)
    h.clock.advance(5_000)
    const second = await ingest(h, h.a.publicKey, { ...batch, captured_at: h.clock.now().toISOString(), signals: makeSignals(30, 10_000) })
    expect(second.status).toBe(202)
    h.clock.advance(5_000)
    const third = await ingest(h, h.a.secretKey, { ...batch, captured_at: h.clock.now().toISOString(), signals: makeSignals(20, 20_000) })
    expect(third.body).toMatchObject({ signals: 90, batches: 3, scored_at: h.clock.now().toISOString() })
    const rows = await h.deps.db.sql<{ seq: number; signal_count: number }[]>`
      select seq, signal_count from session_batches where org_id = ${h.a.orgId} and session_id = ${batch.session_id} order by seq`
    expect(rows.map((r) => [r.seq, r.signal_count])).toEqual([
      [1, 40],
      [2, 30],
      [3, 20],
    ])
  })

  it('does not append a retried batch twice and answers as the first time', async () => {
    const batch = makeBatch(h)
    const first = await ingest(h, h.a.secretKey, batch)
    const counts = await rowCounts(h, h.a)
    const again = await ingest(h, h.a.secretKey, batch)
    expect(again.status).toBe(first.status)
    expect(again.body).toEqual(first.body)
    expect(again.body.batches).toBe(1)
    expect(await rowCounts(h, h.a)).toEqual(counts)
    const viaBrowser = await ingest(h, h.a.publicKey, batch)
    expect(viaBrowser.status).toBe(202)
    expect(viaBrowser.body).toEqual({ session_id: batch.session_id, accepted: 50 })
    expect(await rowCounts(h, h.a)).toEqual(counts)
  })

  it('treats the same signals at another captured_at as a new batch', async () => {
    const batch = makeBatch(h)
    await ingest(h, h.a.secretKey, batch)
    h.clock.advance(1_000)
    const next = await ingest(h, h.a.secretKey, { ...batch, captured_at: h.clock.now().toISOString() })
    expect(next.body.batches).toBe(2)
  })

  it('closes a session to new batches 30 minutes after its first one (409), answering nothing written', async () => {
    const batch = makeBatch(h)
    await ingest(h, h.a.secretKey, batch)
    h.clock.advance(29 * 60_000)
    const late = await ingest(h, h.a.secretKey, { ...batch, captured_at: h.clock.now().toISOString(), signals: makeSignals(5, 60_000) })
    expect(late.status).toBe(200)
    h.clock.advance(60_000)
    const counts = await rowCounts(h, h.a)
    const closed = await ingest(h, h.a.secretKey, { ...batch, captured_at: h.clock.now().toISOString(), signals: makeSignals(5, 120_000) })
    expect(closed.status).toBe(409)
    expect(closed.body.error.code).toBe('conflict')
    expect(closed.headers.get('x-quota-limit')).toBe('1000')
    expect(closed.headers.get('x-quota-remaining')).toBe(String(1000 - counts.used))
    expect(await rowCounts(h, h.a)).toEqual(counts)
    expect((await getSession(h.a.secretKey, batch.session_id)).body.batches).toBe(2)
  })
})

describe('credentials and tenancy', () => {
  it('answers 401 without a key, with an unknown key and with a revoked key, storing nothing', async () => {
    const org = await h.seedOrg('Revoked Org')
    await h.deps.db.sql`update api_key_pairs set revoked_at = now() where key_pair_id = ${org.keyPairId}`
    const before = await rowCounts(h, org)
    const batch = makeBatch(h)
    const none = await h.json('POST', '/v1/ingest', { body: batch })
    expect(none.status).toBe(401)
    expect(none.body.error.code).toBe('unauthorized')
    expect((await ingest(h, 'svc_live_sk_' + 'Z'.repeat(40), batch)).status).toBe(401)
    expect((await ingest(h, org.secretKey, batch)).status).toBe(401)
    expect((await ingest(h, org.publicKey, batch)).status).toBe(401)
    expect(await rowCounts(h, org)).toEqual(before)
  })

  it('needs the secret key to read a session: a public key gets 403', async () => {
    const batch = makeBatch(h)
    await ingest(h, h.a.secretKey, batch)
    const res = await getSession(h.a.publicKey, batch.session_id)
    expect(res.status).toBe(403)
    expect(res.body.error.code).toBe('forbidden')
    expect((await h.json('GET', `/v1/session/${batch.session_id}`)).status).toBe(401)
  })

  it("answers 404 for another organization's session and for an unknown one", async () => {
    const batch = makeBatch(h)
    await ingest(h, h.a.secretKey, batch)
    const cross = await getSession(h.b.secretKey, batch.session_id)
    expect(cross.status).toBe(404)
    expect(cross.body.error.code).toBe('not_found')
    expect((await getSession(h.a.secretKey, crypto.randomUUID())).status).toBe(404)
  })

  it('reads a session id case-insensitively', async () => {
    const batch = makeBatch(h)
    await ingest(h, h.a.secretKey, batch)
    expect((await getSession(h.a.secretKey, batch.session_id.toUpperCase())).body.session_id).toBe(batch.session_id)
  })

  it('keeps the same session UUID in two organizations as two unrelated sessions', async () => {
    const id = crypto.randomUUID()
    const usedA = (await rowCounts(h, h.a)).used
    const usedB = (await rowCounts(h, h.b)).used
    const a = await ingest(h, h.a.secretKey, makeBatch(h, { session_id: id, signals: makeSignals(10) }))
    const b = await ingest(h, h.b.secretKey, makeBatch(h, { session_id: id, signals: makeSignals(25, 0, 7) }))
    expect(a.status).toBe(200)
    expect(b.status).toBe(200)
    expect(b.body).toMatchObject({ signals: 25, batches: 1 })
    h.clock.advance(1_000)
    await ingest(h, h.a.secretKey, makeBatch(h, { session_id: id, signals: makeSignals(5, 1_000) }))
    expect((await getSession(h.a.secretKey, id)).body).toMatchObject({ signals: 15, batches: 2 })
    expect((await getSession(h.b.secretKey, id)).body).toMatchObject({ signals: 25, batches: 1 })
    expect((await rowCounts(h, h.a)).used).toBe(usedA + 1)
    expect((await rowCounts(h, h.b)).used).toBe(usedB + 1)
  })
})

describe('replayed trajectories', () => {
  const path = Array.from({ length: 60 }, (_, i) => ({
    t: i * 16,
    k: 'mm',
    x: 100 + i * 3 + (i % 4),
    y: 200 + Math.round(20 * Math.sin(i / 6)),
  }))

  it('flags a session whose trajectory another session of the same organization already had', async () => {
    const original = await ingest(h, h.a.secretKey, makeBatch(h, { signals: path }))
    expect(original.body.reasons).not.toContain('replayed_trajectory')
    // The same moves, shifted in time and on the page.
    const copy = makeBatch(h, { signals: path.map((e) => ({ ...e, t: e.t + 5_000, x: e.x + 40, y: e.y - 10 })) })
    const replayed = await ingest(h, h.a.secretKey, copy)
    expect(replayed.body.reasons).toContain('replayed_trajectory')
    expect(replayed.body.hcs).toBeLessThanOrEqual(10)
    const prints = await h.deps.db.sql<{ fingerprint: string | null }[]>`
      select fingerprint from sessions where org_id = ${h.a.orgId} and session_id in ${h.deps.db.sql([original.body.session_id, copy.session_id])}`
    expect(prints).toHaveLength(2)
    expect(prints[0]!.fingerprint).toBeString()
    expect(prints[0]!.fingerprint).toBe(prints[1]!.fingerprint)
  })

  it('flags a replayed touch trajectory (a mobile session without mouse moves) too', async () => {
    // three swipes up, each a ts … te run; moves vary like a fling's
    const swipes = [0, 1, 2].flatMap((k) =>
      Array.from({ length: 12 }, (_, i) => ({
        t: k * 900 + i * 16,
        k: i === 0 ? 'ts' : i === 11 ? 'te' : 'tm',
        x: 180 + k * 7 + Math.round(4 * Math.sin(i / 2 + k)),
        y: 600 - Math.round((250 * (1 - Math.cos((Math.PI * i) / 11))) / 2) - k * i,
        r: 20,
      }))
    )
    const original = await ingest(h, h.a.secretKey, makeBatch(h, { signals: swipes }))
    expect(original.status).toBe(200)
    expect(original.body.reasons).not.toContain('replayed_trajectory')
    const copy = makeBatch(h, { signals: swipes.map((e) => ({ ...e, t: e.t + 2_000, x: e.x - 15, y: e.y + 30 })) })
    const replayed = await ingest(h, h.a.secretKey, copy)
    expect(replayed.body.reasons).toContain('replayed_trajectory')
    const [row] = await h.deps.db.sql<{ fingerprint: string | null }[]>`
      select fingerprint from sessions where org_id = ${h.a.orgId} and session_id = ${copy.session_id}`
    expect(row!.fingerprint).toMatch(/^tt1:[0-9a-f]{16}$/)
  })

  it("does not compare with other organizations' sessions", async () => {
    const other = await ingest(h, h.b.secretKey, makeBatch(h, { signals: path }))
    expect(other.status).toBe(200)
    expect(other.body.reasons).not.toContain('replayed_trajectory')
  })
})
