import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { gql } from '../graphql/gql'
import { createHarness, type Harness } from '../helpers/harness'

// Idempotency-Key as API.md defines it (issue 16).
let h: Harness
beforeAll(async () => {
  h = await createHarness({ env: { TRUST_PROXY: 'true' } })
}, 30_000)
afterAll(() => h.close())

const tickets = async (orgId: string) =>
  (await h.testDb.db.sql`select count(*)::int as n from support_tickets where org_id = ${orgId}`)[0]!.n as number
const keyPairs = async (orgId: string) =>
  (await h.testDb.db.sql`select count(*)::int as n from api_key_pairs where org_id = ${orgId}`)[0]!.n as number
const ticket = (key: string, subject = 'Invoice question', auth: Record<string, string> = { 'x-api-key': h.a.secretKey }) =>
  h.json('POST', '/v1/support/tickets', { body: { subject, message: 'Where is it?' }, headers: { ...auth, 'idempotency-key': key } })

describe('Idempotency-Key on REST POSTs', () => {
  it('replays the first answer for the same key and body, and creates one ticket', async () => {
    const before = await tickets(h.a.orgId)
    const first = await ticket('order-1')
    expect(first.status).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const again = await ticket('order-1')
    expect(again.status).toBe(201)
    expect(again.body).toEqual(first.body)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.headers.get('content-type')).toContain('application/json')
    // The replay is a response of its own: its own request id.
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'))
    expect(await tickets(h.a.orgId)).toBe(before + 1)
  })

  it('answers 409 for the same key with another body, and creates nothing', async () => {
    await ticket('order-2')
    const before = await tickets(h.a.orgId)
    const other = await ticket('order-2', 'Another subject')
    expect(other.status).toBe(409)
    expect(other.body.error.code).toBe('conflict')
    expect(await tickets(h.a.orgId)).toBe(before)
  })

  it('two identical ticket POSTs at once create one ticket', async () => {
    const before = await tickets(h.a.orgId)
    const answers = await Promise.all([ticket('together'), ticket('together'), ticket('together')])
    const statuses = answers.map((a) => a.status).sort()
    // One ran; the others were either refused while it ran (409, Retry-After) or replayed its answer.
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1)
    for (const a of answers) {
      if (a.status === 409) expect(a.headers.get('retry-after')).toBe('1')
      else expect(a.body.ticket_id).toBe(answers.find((x) => x.status === 201 && !x.headers.get('idempotent-replayed'))!.body.ticket_id)
    }
    expect(answers.filter((a) => a.status === 201 && !a.headers.get('idempotent-replayed')).length).toBe(1)
    expect(await tickets(h.a.orgId)).toBe(before + 1)
    const retry = await ticket('together')
    expect(retry.headers.get('idempotent-replayed')).toBe('true')
  })

  it('scopes keys to the organization: the same key elsewhere is a new request', async () => {
    const a = await ticket('shared-key')
    const b = await ticket('shared-key', 'Invoice question', { 'x-api-key': h.b.secretKey })
    expect(b.status).toBe(201)
    expect(b.headers.get('idempotent-replayed')).toBeNull()
    expect(b.body.ticket_id).not.toBe(a.body.ticket_id)
  })

  it('shares the scope between the secret key and a dashboard JWT of one organization', async () => {
    const viaKey = await ticket('by-either')
    const viaJwt = await ticket('by-either', 'Invoice question', { authorization: `Bearer ${h.a.jwt}` })
    expect(viaJwt.headers.get('idempotent-replayed')).toBe('true')
    expect(viaJwt.body.ticket_id).toBe(viaKey.body.ticket_id)
  })

  it('forgets a key after 24 hours', async () => {
    const before = await tickets(h.a.orgId)
    await ticket('day-old')
    h.clock.advance(24 * 60 * 60 * 1000 + 1000)
    const later = await ticket('day-old')
    expect(later.headers.get('idempotent-replayed')).toBeNull()
    expect(await tickets(h.a.orgId)).toBe(before + 2)
  })

  it('keeps no failed answer: a refused request runs again on retry', async () => {
    const refused = await h.json('POST', '/v1/support/tickets', {
      body: { subject: 's', message: 'm' },
      headers: { 'x-api-key': 'svc_live_sk_' + 'x'.repeat(40), 'idempotency-key': 'after-401' },
    })
    expect(refused.status).toBe(401)
    const invalid = await h.json('POST', '/v1/support/tickets', {
      body: { subject: '', message: 'm' },
      headers: { 'x-api-key': h.a.secretKey, 'idempotency-key': 'after-400' },
    })
    expect(invalid.status).toBe(400)
    const fixed = await h.json('POST', '/v1/support/tickets', {
      body: { subject: 'now valid', message: 'm' },
      headers: { 'x-api-key': h.a.secretKey, 'idempotency-key': 'after-400' },
    })
    expect(fixed.status).toBe(201)
    expect(fixed.headers.get('idempotent-replayed')).toBeNull()
  })

  it('refuses a malformed key with 400 before anything runs', async () => {
    const before = await tickets(h.a.orgId)
    // An empty value is present but outside 1–255 characters; the others are not visible ASCII or too long.
    for (const key of ['', 'x'.repeat(256), 'has space', 'tab\there']) {
      const res = await ticket(key)
      expect(res.status).toBe(400)
      expect(res.body.error.code).toBe('validation_failed')
      expect(res.body.error.details[0].path).toBe('Idempotency-Key')
    }
    expect(await tickets(h.a.orgId)).toBe(before)
    expect((await ticket('x'.repeat(255))).status).toBe(201)
  })

  it('scopes credential-free POSTs by client IP', async () => {
    const lead = (ip: string, email: string) =>
      h.json('POST', '/v1/leads', {
        body: { email, source: 'pricing_page' },
        headers: { 'x-forwarded-for': ip, 'idempotency-key': 'lead-form-1' },
      })
    const first = await lead('198.51.100.1', 'ann@example.com')
    expect(first.status).toBe(201)
    expect((await lead('198.51.100.1', 'ann@example.com')).headers.get('idempotent-replayed')).toBe('true')
    // Another client with the same key and another body is not a conflict: another scope.
    expect((await lead('198.51.100.2', 'bob@example.com')).status).toBe(201)
    expect((await lead('198.51.100.1', 'bob@example.com')).status).toBe(409)
  })

  it('leaves ingest and refresh to their own retry rules', async () => {
    const res = await h.json('POST', '/auth/refresh', {
      body: { refresh_token: 'nope-nope-nope' },
      headers: { 'idempotency-key': 'refresh-1' },
    })
    expect(res.status).toBe(401)
    const rows = await h.testDb.db.sql`select count(*)::int as n from idempotency_keys`
    const n = rows[0]!.n
    await h.json('POST', '/auth/refresh', { body: { refresh_token: 'other' }, headers: { 'idempotency-key': 'refresh-1' } })
    expect((await h.testDb.db.sql`select count(*)::int as n from idempotency_keys`)[0]!.n).toBe(n)
  })

  it('stores neither the key nor the answer in clear', async () => {
    const res = await ticket('visible-key-123')
    const rows = await h.testDb.db.sql`select key_digest, response from idempotency_keys where response is not null`
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) {
      expect(row.key_digest).toMatch(/^[0-9a-f]{64}$/)
      expect(Buffer.from(row.response).toString('latin1')).not.toContain(res.body.ticket_id)
    }
  })
})

describe('Idempotency-Key on GraphQL mutations', () => {
  const create = (name: string, key: string) =>
    gql(
      h.app,
      { jwt: h.a.jwt, headers: { 'idempotency-key': key } },
      `mutation { createApiKey(name: "${name}", sdkType: WEB) { keyPairId secretKey } }`
    )

  it('replays a mutation and creates one key pair', async () => {
    const before = await keyPairs(h.a.orgId)
    const first = await create('ci', 'gql-1')
    expect(first.status).toBe(200)
    const again = await create('ci', 'gql-1')
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    expect(await keyPairs(h.a.orgId)).toBe(before + 1)
  })

  it('answers 409 with a GraphQL error for another mutation under the same key', async () => {
    await create('one', 'gql-2')
    const other = await create('two', 'gql-2')
    expect(other.status).toBe(409)
    expect(other.body.errors[0].message).toContain('Idempotency-Key')
  })

  it('does not freeze queries', async () => {
    const q = () => gql(h.app, { jwt: h.a.jwt, headers: { 'idempotency-key': 'gql-q' } }, '{ listApiKeys { keyPairId } }')
    await q()
    expect((await q()).headers.get('idempotent-replayed')).toBeNull()
  })
})

describe('Idempotency-Key while the database is down', () => {
  it('answers a GraphQL mutation with GraphQL 503 UNAVAILABLE and a ticket POST with the REST 503', async () => {
    const { createTestDb } = await import('../helpers/db')
    const testDb = await createTestDb()
    const down = await createHarness({ testDb: { db: testDb.db, drop: async () => {} } })
    try {
      await testDb.db.close()
      const mutation = await gql(
        down.app,
        { jwt: down.a.jwt, headers: { 'idempotency-key': 'outage-1' } },
        'mutation { createApiKey(name: "x", sdkType: WEB) { keyPairId } }'
      )
      expect(mutation.status).toBe(503)
      expect(mutation.headers.get('retry-after')).toBe('5')
      expect(mutation.body.errors[0].extensions).toEqual({ code: 'UNAVAILABLE' })
      const ticket = await down.json('POST', '/v1/support/tickets', {
        body: { subject: 's', message: 'm' },
        headers: { authorization: `Bearer ${down.a.jwt}`, 'idempotency-key': 'outage-2' },
      })
      expect(ticket.status).toBe(503)
      expect(ticket.body.error.code).toBe('unavailable')
    } finally {
      await down.close().catch(() => {})
    }
  })
})
