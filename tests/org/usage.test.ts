import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { monthStartUtc, nextMonthStartUtc } from '../../src/server/platform/clock'
import { createUser } from '../../tenants/provision'
import { createHarness, type Harness } from '../helpers/harness'

// Database set-up (argon2, migrations) is slow on a loaded machine; nothing here asserts on time.
setDefaultTimeout(60_000)

let h: Harness
const month = () => monthStartUtc(h.clock.now()).toISOString().slice(0, 10)
beforeAll(async () => {
  h = await createHarness()
  await h.deps.db
    .sql`insert into usage_counters (org_id, month, sessions_used) values (${h.a.orgId}, ${month()}, 333), (${h.b.orgId}, ${month()}, 7)`
  // Last month's sessions do not count toward this month.
  const last = new Date(monthStartUtc(h.clock.now()).getTime() - 86_400_000)
  await h.deps.db
    .sql`insert into usage_counters (org_id, month, sessions_used) values (${h.a.orgId}, ${monthStartUtc(last).toISOString().slice(0, 10)}, 999)`
}, 60_000)
afterAll(() => h.close())

const usage = (headers: Record<string, string>) => h.json('GET', '/v1/org/usage', { headers })

describe('GET /v1/org/usage', () => {
  it("answers the secret key's organization usage for the current month", async () => {
    const res = await usage({ 'x-api-key': h.a.secretKey })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      plan_id: 'free',
      display_name: 'Free',
      sessions_used: 333,
      sessions_limit: 1000,
      percent_used: 33.3,
      period_start: monthStartUtc(h.clock.now()).toISOString(),
      period_end: nextMonthStartUtc(h.clock.now()).toISOString(),
    })
    expect(res.body.period_start).toEndWith('Z')
    expect(res.headers.get('ratelimit-limit')).toBe('600')
  })

  it('answers a dashboard JWT with its own organization, whatever the role', async () => {
    const res = await usage({ authorization: `Bearer ${h.b.jwt}` })
    expect(res.status).toBe(200)
    expect(res.body.sessions_used).toBe(7)
    expect(res.body.percent_used).toBe(0.7)
    const memberId = await createUser(h.deps.db.sql, {
      orgId: h.b.orgId,
      email: 'member@usage.test',
      password: 'correct-horse-battery',
      role: 'member',
    })
    const member = await h.deps.tokens.sign({ sub: memberId, org: h.b.orgId, role: 'member' })
    expect((await usage({ authorization: `Bearer ${member}` })).body.sessions_used).toBe(7)
  })

  it('shows each organization only its own usage', async () => {
    expect((await usage({ 'x-api-key': h.b.secretKey })).body.sessions_used).toBe(7)
    expect((await usage({ authorization: `Bearer ${h.a.jwt}` })).body.sessions_used).toBe(333)
  })

  it('shows zero for an organization with no sessions this month, and its own plan', async () => {
    const org = await h.seedOrg('Fresh Growth', 'growth')
    const res = await usage({ 'x-api-key': org.secretKey })
    expect(res.body).toMatchObject({
      plan_id: 'growth',
      display_name: 'Growth',
      sessions_used: 0,
      sessions_limit: 250_000,
      percent_used: 0,
    })
  })

  it('caps percent_used at 100 and rounds to one decimal', async () => {
    const org = await h.seedOrg('Over')
    await h.deps.db.sql`insert into usage_counters (org_id, month, sessions_used) values (${org.orgId}, ${month()}, 1000)`
    expect((await usage({ 'x-api-key': org.secretKey })).body.percent_used).toBe(100)
    await h.deps.db.sql`update usage_counters set sessions_used = 2 where org_id = ${org.orgId}`
    expect((await usage({ 'x-api-key': org.secretKey })).body.percent_used).toBe(0.2)
  })

  it('refuses a public key with 403', async () => {
    const res = await usage({ 'x-api-key': h.a.publicKey })
    expect(res.status).toBe(403)
    expect(res.body.error.code).toBe('forbidden')
  })

  it('refuses a missing, malformed, unknown or tampered credential with 401', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { 'x-api-key': 'not-a-key' },
      { 'x-api-key': 'svc_live_sk_' + 'Z'.repeat(40) },
      { authorization: `Bearer ${h.a.jwt}x` },
      { authorization: 'Basic abc' },
    ]
    for (const headers of attempts) {
      const res = await usage(headers)
      expect(res.status).toBe(401)
      expect(res.body.error.code).toBe('unauthorized')
      expect(JSON.stringify(res.body)).not.toContain('sessions_used')
    }
  })
})
