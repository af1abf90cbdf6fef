import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { monthStartUtc, nextMonthStartUtc, secondsUntil } from '../../src/server/platform/clock'
import { createHarness, type Harness, type SeededOrg } from '../helpers/harness'
import { ingest, makeBatch, makeSignals, midMonth, rowCounts, withKey } from './support'

// The tests run in order on one clock that only moves forward: mid-month, then across the month's end.
let h: Harness
let tiny: SeededOrg
beforeAll(async () => {
  h = await createHarness()
  h.clock.current = midMonth()
  await h.deps.db.sql`insert into plans (plan_id, display_name, sessions_limit) values ('tiny', 'Tiny', 3), ('none', 'None', 0)`
  tiny = await h.seedOrg('Tiny', 'tiny')
}, 60_000)
afterAll(() => h.close())

const monthOf = (d: Date) => monthStartUtc(d).toISOString().slice(0, 10)
async function counter(orgId: string, month: string): Promise<number | null> {
  const [row] = await h.deps.db.sql<{ sessions_used: number }[]>`
    select sessions_used from usage_counters where org_id = ${orgId} and month = ${month}`
  return row ? row.sessions_used : null
}

describe('monthly session limit', () => {
  const counted: ReturnType<typeof makeBatch>[] = []

  it('refuses the 4th new session of a 3-session plan with 429 and Retry-After, storing nothing', async () => {
    for (let i = 0; i < 3; i++) {
      const batch = makeBatch(h)
      const res = await ingest(h, tiny.secretKey, batch)
      expect(res.status).toBe(200)
      expect(res.headers.get('x-quota-remaining')).toBe(String(2 - i))
      counted.push(batch)
    }
    const before = await rowCounts(h, tiny)
    expect(before).toEqual({ sessions: 3, batches: 3, used: 3 })
    const fourth = makeBatch(h)
    for (const key of [tiny.secretKey, tiny.publicKey]) {
      const res = await ingest(h, key, fourth)
      expect(res.status).toBe(429)
      expect(res.body.error.code).toBe('plan_limit_exceeded')
      expect(res.headers.get('retry-after')).toBe(String(secondsUntil(nextMonthStartUtc(h.clock.now()), h.clock.now())))
      expect(res.headers.get('x-quota-limit')).toBe('3')
      expect(res.headers.get('x-quota-remaining')).toBe('0')
    }
    expect(await rowCounts(h, tiny)).toEqual(before)
    expect((await h.json('GET', `/v1/session/${fourth.session_id}`, { headers: withKey(tiny.secretKey) })).status).toBe(404)
  })

  it('still takes batches of sessions already counted, at the limit', async () => {
    h.clock.advance(60_000)
    const res = await ingest(h, tiny.secretKey, {
      ...counted[0]!,
      captured_at: h.clock.now().toISOString(),
      signals: makeSignals(10, 9_000),
    })
    expect(res.status).toBe(200)
    expect(res.body.batches).toBe(2)
    expect(await rowCounts(h, tiny)).toEqual({ sessions: 3, batches: 4, used: 3 })
  })

  it('refuses every new session on a plan whose limit is 0', async () => {
    const org = await h.seedOrg('Nothing', 'none')
    const res = await ingest(h, org.secretKey, makeBatch(h))
    expect(res.status).toBe(429)
    expect(res.headers.get('x-quota-limit')).toBe('0')
    expect(await rowCounts(h, org)).toEqual({ sessions: 0, batches: 0, used: 0 })
    expect(await counter(org.orgId, monthOf(h.clock.now()))).toBeNull()
  })

  it('counts a session in the month of its first batch, even when later batches arrive next month', async () => {
    const org = await h.seedOrg('Straddle', 'tiny')
    const end = nextMonthStartUtc(h.clock.now())
    h.clock.current = new Date(end.getTime() - 10 * 60_000)
    const batch = makeBatch(h)
    expect((await ingest(h, org.secretKey, batch)).status).toBe(200)
    h.clock.advance(15 * 60_000)
    const next = await ingest(h, org.secretKey, { ...batch, captured_at: h.clock.now().toISOString(), signals: makeSignals(5, 900_000) })
    expect(next.status).toBe(200)
    expect(next.body.batches).toBe(2)
    expect(await counter(org.orgId, monthOf(new Date(end.getTime() - 1)))).toBe(1)
    expect(await counter(org.orgId, monthOf(end))).toBeNull()
    expect(next.headers.get('x-quota-remaining')).toBe('3')
  })

  it('starts counting afresh in a new month', async () => {
    const previousMonth = monthOf(new Date(monthStartUtc(h.clock.now()).getTime() - 1))
    expect(await counter(tiny.orgId, previousMonth)).toBe(3)
    const res = await ingest(h, tiny.secretKey, makeBatch(h))
    expect(res.status).toBe(200)
    expect(res.headers.get('x-quota-remaining')).toBe('2')
    expect(await counter(tiny.orgId, monthOf(h.clock.now()))).toBe(1)
    expect(await counter(tiny.orgId, previousMonth)).toBe(3)
    const usage = await h.json('GET', '/v1/org/usage', { headers: withKey(tiny.secretKey) })
    expect(usage.body).toMatchObject({ sessions_used: 1, sessions_limit: 3 })
  })
})
