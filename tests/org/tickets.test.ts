import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createUser } from '../../tenants/provision'
import { createHarness, type Harness } from '../helpers/harness'

// Database set-up (argon2, migrations) is slow on a loaded machine; nothing here asserts on time.
setDefaultTimeout(60_000)

let h: Harness
beforeAll(async () => {
  h = await createHarness()
}, 60_000)
afterAll(() => h.close())

type Row = {
  org_id: string
  user_id: string | null
  key_pair_id: string | null
  subject: string
  message: string
  priority: string
  status: string
}
const post = (body: unknown, headers: Record<string, string> = { 'x-api-key': h.a.secretKey }) =>
  h.json('POST', '/v1/support/tickets', { body, headers })
const row = async (ticketId: string) => {
  const [r]: [Row?] = await h.deps.db
    .sql`select org_id, user_id, key_pair_id, subject, message, priority, status from support_tickets where ticket_id = ${ticketId}`
  return r
}
const mailTo = async (ticketId: string) =>
  h.deps.db.sql<{ to_address: string; subject: string; body: string }[]>`
    select to_address, subject, body from mail_outbox where body like ${'%' + ticketId + '%'}`

describe('POST /v1/support/tickets', () => {
  it('opens a ticket for the secret key’s organization and key pair', async () => {
    const res = await post({ subject: '  Scores look off  ', message: 'Since Tuesday every session is "bot".' })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      ticket_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'open',
      subject: 'Scores look off',
      priority: 'normal',
      created_at: h.clock.now().toISOString(),
    })
    expect(res.headers.get('ratelimit-limit')).toBe('600')
    expect(await row(res.body.ticket_id)).toEqual({
      org_id: h.a.orgId,
      user_id: null,
      key_pair_id: h.a.keyPairId,
      subject: 'Scores look off',
      message: 'Since Tuesday every session is "bot".',
      priority: 'normal',
      status: 'open',
    })
  })

  it('links a ticket opened with a dashboard JWT to the user', async () => {
    const res = await post({ subject: 'Billing', message: 'Upgrade please', priority: 'high' }, { authorization: `Bearer ${h.b.jwt}` })
    expect(res.status).toBe(201)
    expect(res.body.priority).toBe('high')
    expect(await row(res.body.ticket_id)).toMatchObject({ org_id: h.b.orgId, user_id: h.b.userId, key_pair_id: null })
  })

  it('accepts every priority', async () => {
    for (const priority of ['low', 'normal', 'high', 'urgent']) {
      const res = await post({ subject: 's', message: 'm', priority })
      expect(res.status).toBe(201)
      expect(res.body.priority).toBe(priority)
    }
  })

  it('files the ticket under the caller’s organization whatever the body says', async () => {
    const res = await post({
      subject: 'Hi',
      message: 'm',
      org_id: h.b.orgId,
      user_id: h.b.userId,
      status: 'closed',
      ticket_id: crypto.randomUUID(),
    })
    expect(res.status).toBe(201)
    expect(res.body.status).toBe('open')
    const stored = await row(res.body.ticket_id)
    expect(stored).toMatchObject({ org_id: h.a.orgId, user_id: null, status: 'open' })
  })

  it('e-mails support with the priority and organization in the subject', async () => {
    const res = await post({ subject: 'Outage\r\nBcc: evil@x.test', message: 'Everything is down.', priority: 'urgent' })
    const mails = await mailTo(res.body.ticket_id)
    expect(mails.length).toBe(1)
    const mail = mails[0]!
    expect(mail.to_address).toBe(h.deps.config.supportEmail)
    expect(mail.subject).toContain('urgent')
    expect(mail.subject).toContain('Org A')
    expect(mail.subject).not.toMatch(/[\r\n]/)
    expect(mail.body).toContain(h.a.orgId)
    expect(mail.body).toContain(res.body.ticket_id)
    expect(mail.body).toContain('Everything is down.')
  })

  it('still opens the ticket when the notification cannot be sent', async () => {
    const send = h.deps.mailer.send
    h.deps.mailer.send = async () => {
      throw new Error('smtp down')
    }
    try {
      const res = await post({ subject: 'No mail', message: 'm' })
      expect(res.status).toBe(201)
      expect(await row(res.body.ticket_id)).toBeDefined()
      expect(h.logs.some((l) => l.includes('support ticket notification failed'))).toBe(true)
    } finally {
      h.deps.mailer.send = send
    }
  })

  it('accepts a 200-character subject and a 10,000-character message', async () => {
    const res = await post({ subject: 's'.repeat(200), message: 'm'.repeat(10_000) })
    expect(res.status).toBe(201)
  })

  const invalid: [string, unknown, string][] = [
    ['missing subject', { message: 'm' }, 'subject'],
    ['empty subject', { subject: '', message: 'm' }, 'subject'],
    ['blank subject', { subject: '   \n ', message: 'm' }, 'subject'],
    ['201-character subject', { subject: 's'.repeat(201), message: 'm' }, 'subject'],
    ['non-string subject', { subject: 42, message: 'm' }, 'subject'],
    ['null subject', { subject: null, message: 'm' }, 'subject'],
    ['missing message', { subject: 's' }, 'message'],
    ['empty message', { subject: 's', message: '' }, 'message'],
    ['blank message', { subject: 's', message: '  ' }, 'message'],
    ['10,001-character message', { subject: 's', message: 'm'.repeat(10_001) }, 'message'],
    ['non-string message', { subject: 's', message: ['m'] }, 'message'],
    ['unknown priority', { subject: 's', message: 'm', priority: 'critical' }, 'priority'],
    ['upper-case priority', { subject: 's', message: 'm', priority: 'HIGH' }, 'priority'],
    ['null priority', { subject: 's', message: 'm', priority: null }, 'priority'],
  ]
  for (const [name, body, path] of invalid) {
    it(`answers 400 validation_failed for a ${name}`, async () => {
      const before = await h.deps.db.sql`select count(*)::int as n from support_tickets`
      const res = await post(body)
      expect(res.status).toBe(400)
      expect(res.body.error.code).toBe('validation_failed')
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path)
      const after = await h.deps.db.sql`select count(*)::int as n from support_tickets`
      expect(after[0]!.n).toBe(before[0]!.n)
    })
  }

  it('answers 400 for a body that is not an object', async () => {
    for (const body of [[], 'text', 7, null]) {
      const res = await post(body)
      expect(res.status).toBe(400)
      expect(res.body.error.code).toBe('validation_failed')
    }
  })

  it('answers 400 invalid_json and 415 for malformed requests', async () => {
    const bad = await h.json('POST', '/v1/support/tickets', {
      rawBody: '{"subject":',
      headers: { 'content-type': 'application/json', 'x-api-key': h.a.secretKey },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.error.code).toBe('invalid_json')
    const form = await h.json('POST', '/v1/support/tickets', {
      rawBody: 'subject=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': h.a.secretKey },
    })
    expect(form.status).toBe(415)
  })

  it('refuses a public key (403) and a missing or unknown credential (401)', async () => {
    const pub = await post({ subject: 's', message: 'm' }, { 'x-api-key': h.a.publicKey })
    expect(pub.status).toBe(403)
    expect(pub.body.error.code).toBe('forbidden')
    expect((await post({ subject: 's', message: 'm' }, {})).status).toBe(401)
    expect((await post({ subject: 's', message: 'm' }, { 'x-api-key': 'svc_live_sk_' + 'Q'.repeat(40) })).status).toBe(401)
    expect((await post({ subject: 's', message: 'm' }, { authorization: 'Bearer nope' })).status).toBe(401)
  })
})

describe('GraphQL listSupportTickets', () => {
  const query = '{ listSupportTickets { ticketId subject message priority status createdAt } }'
  const gql = (jwt: string) => h.json('POST', '/graphql', { body: { query }, headers: { authorization: `Bearer ${jwt}` } })
  let adminB: string
  let memberA: string
  beforeAll(async () => {
    const adminId = await createUser(h.deps.db.sql, {
      orgId: h.b.orgId,
      email: 'admin@tickets-b.test',
      password: 'correct-horse-battery',
      role: 'admin',
    })
    adminB = await h.deps.tokens.sign({ sub: adminId, org: h.b.orgId, role: 'admin' })
    const memberId = await createUser(h.deps.db.sql, {
      orgId: h.a.orgId,
      email: 'member@tickets-a.test',
      password: 'correct-horse-battery',
      role: 'member',
    })
    memberA = await h.deps.tokens.sign({ sub: memberId, org: h.a.orgId, role: 'member' })
  })

  it("lists the owner's organization's tickets, newest first", async () => {
    const first = await post({ subject: 'Older', message: 'first' })
    h.clock.advance(1000)
    const second = await post({ subject: 'Newer', message: 'second', priority: 'low' })
    const res = await gql(h.a.jwt)
    expect(res.status).toBe(200)
    expect(res.body.errors).toBeUndefined()
    const tickets = res.body.data.listSupportTickets
    const ids = tickets.map((t: { ticketId: string }) => t.ticketId)
    expect(ids.indexOf(second.body.ticket_id)).toBeLessThan(ids.indexOf(first.body.ticket_id))
    expect(tickets.find((t: { ticketId: string }) => t.ticketId === second.body.ticket_id)).toEqual({
      ticketId: second.body.ticket_id,
      subject: 'Newer',
      message: 'second',
      priority: 'low',
      status: 'open',
      createdAt: second.body.created_at,
    })
  })

  it("never shows another organization's tickets to an admin", async () => {
    const a = await post({ subject: 'A only', message: 'secret of A' })
    const b = await post({ subject: 'B ticket', message: 'b' }, { 'x-api-key': h.b.secretKey })
    const res = await gql(adminB)
    expect(res.status).toBe(200)
    const ids = res.body.data.listSupportTickets.map((t: { ticketId: string }) => t.ticketId)
    expect(ids).toContain(b.body.ticket_id)
    expect(ids).not.toContain(a.body.ticket_id)
    expect(JSON.stringify(res.body)).not.toContain('secret of A')
  })

  it('refuses a member with FORBIDDEN', async () => {
    const res = await gql(memberA)
    expect(res.body.data).toBeNull()
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN')
  })

  it('refuses an API key with 401 UNAUTHENTICATED', async () => {
    const res = await h.json('POST', '/graphql', { body: { query }, headers: { 'x-api-key': h.a.secretKey } })
    expect(res.status).toBe(401)
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED')
  })
})
