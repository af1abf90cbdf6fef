import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness'

// Row-level security (sql/0002) as a second wall: these queries deliberately omit `where org_id`.
const TENANT_TABLES = [
  'organizations',
  'memberships',
  'api_key_pairs',
  'sessions',
  'session_batches',
  'usage_counters',
  'support_tickets',
] as const

let h: Harness
beforeAll(async () => {
  h = await createHarness()
  for (const org of [h.a, h.b]) {
    const res = await h.json('POST', '/v1/ingest', {
      headers: { 'x-api-key': org.secretKey },
      body: {
        session_id: crypto.randomUUID(),
        sdk_type: 'server',
        captured_at: h.clock.now().toISOString(),
        signals: [{ t: 0, k: 'mm', x: 1, y: 2 }],
        features: Array(34).fill(0),
      },
    })
    expect(res.status).toBe(200)
    const ticket = await h.json('POST', '/v1/support/tickets', {
      headers: { 'x-api-key': org.secretKey },
      body: { subject: 's', message: 'm' },
    })
    expect(ticket.status).toBe(201)
  }
})
afterAll(() => h.close())

const count = (rows: { n: number }[]) => rows[0]!.n

describe('row-level security on tenant tables', () => {
  it('the rows exist: the connection role outside a tenant transaction sees both organizations', async () => {
    for (const table of TENANT_TABLES) {
      const [{ n }] = await h.deps.db.sql<{ n: number }[]>`select count(distinct org_id)::int as n from ${h.deps.db.sql(table)}`
      expect(n).toBe(2)
    }
  })

  it('as the tenant role without app.org_id, a query sees no rows at all', async () => {
    await h.deps.db.sql.begin(async (tx) => {
      await tx`select set_config('role', 'bss_tenant', true)`
      for (const table of TENANT_TABLES) expect(count(await tx`select count(*)::int as n from ${tx(table)}`)).toBe(0)
    })
  })

  it('inside db.tenant(A), an unfiltered query sees only A', async () => {
    await h.deps.db.tenant(h.a.orgId, async (tx) => {
      for (const table of TENANT_TABLES) {
        const orgs = await tx<{ org_id: string }[]>`select distinct org_id from ${tx(table)}`
        expect(orgs.map((r) => r.org_id)).toEqual([h.a.orgId])
      }
    })
  })

  it('inside db.tenant(A), B rows can be neither changed nor created', async () => {
    await h.deps.db.tenant(h.a.orgId, async (tx) => {
      const revoked = await tx`update api_key_pairs set revoked_at = now() where org_id = ${h.b.orgId}`
      expect(revoked.count).toBe(0)
      const deleted = await tx`delete from sessions where org_id = ${h.b.orgId}`
      expect(deleted.count).toBe(0)
    })
    const insertForB = h.deps.db.tenant(
      h.a.orgId,
      (tx) => tx`
      insert into support_tickets (org_id, ticket_id, subject, message, priority) values (${h.b.orgId}, ${crypto.randomUUID()}, 'x', 'y', 'low')`
    )
    await expect(insertForB).rejects.toThrow(/row-level security/)
    const [{ n }] = await h.deps.db.sql<
      { n: number }[]
    >`select count(*)::int as n from api_key_pairs where org_id = ${h.b.orgId} and revoked_at is not null`
    expect(n).toBe(0)
  })

  it('the tenant role cannot read tables outside its grant (users, leads, refresh tokens)', async () => {
    for (const table of ['users', 'leads', 'refresh_tokens', 'otp_challenges', 'mail_outbox']) {
      const attempt = h.deps.db.tenant(h.a.orgId, (tx) => tx`select count(*) from ${tx(table)}`)
      await expect(attempt).rejects.toThrow(/permission denied/)
    }
  })
})
