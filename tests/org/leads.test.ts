import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createLead } from '../../src/server/modules/org'
import { createHarness, type Harness } from '../helpers/harness'

// Database set-up (argon2, migrations) is slow on a loaded machine; nothing here asserts on time.
setDefaultTimeout(60_000)

let h: Harness
let n = 0
beforeAll(async () => {
  // A trusted proxy lets each test use its own client IP, so the per-IP limit only bites where tested.
  h = await createHarness({ env: { TRUST_PROXY: 'true', RATE_LIMIT_IP_PER_MIN: '30' } })
}, 60_000)
afterAll(() => h.close())

const freshIp = () => `192.0.2.${++n}`
const post = (body: unknown, ip = freshIp(), headers: Record<string, string> = {}) =>
  h.json('POST', '/v1/leads', { body, headers: { 'x-forwarded-for': ip, ...headers } })
const leadsFor = async (email: string) => [
  ...(await h.deps.db.sql<
    {
      lead_id: string
      email: string
      source: string
      name: string | null
      company: string | null
      message: string | null
      plan_interest: string | null
    }[]
  >`
    select lead_id, email, source, name, company, message, plan_interest from leads where email = ${email} order by created_at`),
]

describe('POST /v1/leads', () => {
  it('stores a lead with a normalised e-mail and answers 201', async () => {
    const res = await post({
      email: '  Jane.Doe@Example.COM ',
      source: 'pricing_page',
      name: ' Jane ',
      company: 'Acme',
      message: 'Call me',
      plan_interest: 'enterprise',
      org_id: h.a.orgId,
      unknown: 'ignored',
    })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({ lead_id: expect.stringMatching(/^[0-9a-f-]{36}$/), created_at: h.clock.now().toISOString() })
    expect(res.headers.get('ratelimit-limit')).toBe('30')
    expect(await leadsFor('jane.doe@example.com')).toEqual([
      {
        lead_id: res.body.lead_id,
        email: 'jane.doe@example.com',
        source: 'pricing_page',
        name: 'Jane',
        company: 'Acme',
        message: 'Call me',
        plan_interest: 'enterprise',
      },
    ])
  })

  it('stores only email and source when nothing else is given; blank optional fields are absent', async () => {
    const res = await post({ email: 'min@example.com', source: 'chat_widget', name: '   ', company: null })
    expect(res.status).toBe(201)
    expect(await leadsFor('min@example.com')).toEqual([
      {
        lead_id: res.body.lead_id,
        email: 'min@example.com',
        source: 'chat_widget',
        name: null,
        company: null,
        message: null,
        plan_interest: null,
      },
    ])
  })

  it('answers 200 with the existing lead for the same e-mail and source within 24 h', async () => {
    const first = await post({ email: 'dup@example.com', source: 'pricing_page', name: 'First' })
    expect(first.status).toBe(201)
    h.clock.advance(23 * 3600_000)
    const again = await post({ email: ' DUP@example.com', source: 'pricing_page', name: 'Second' })
    expect(again.status).toBe(200)
    expect(again.body).toEqual(first.body)
    const other = await post({ email: 'dup@example.com', source: 'chat_widget' })
    expect(other.status).toBe(201)
    expect(other.body.lead_id).not.toBe(first.body.lead_id)
    const rows = await leadsFor('dup@example.com')
    expect(rows.length).toBe(2)
    expect(rows[0]!.name).toBe('First')
  })

  it('stores a new lead once the 24 h have passed', async () => {
    const first = await post({ email: 'later@example.com', source: 'pricing_page' })
    h.clock.advance(24 * 3600_000 + 1000)
    const later = await post({ email: 'later@example.com', source: 'pricing_page' })
    expect(later.status).toBe(201)
    expect(later.body.lead_id).not.toBe(first.body.lead_id)
  })

  it('stores one lead when the same submission arrives many times at once', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, () => post({ email: 'race@example.com', source: 'chat_widget' })))
    expect(results.filter((r) => r.status === 201).length).toBe(1)
    expect(results.filter((r) => r.status === 200).length).toBe(11)
    expect(new Set(results.map((r) => r.body.lead_id)).size).toBe(1)
    expect((await leadsFor('race@example.com')).length).toBe(1)
  })

  it('stores one lead per e-mail and source under concurrent calls of the service', async () => {
    for (let round = 0; round < 4; round++) {
      const input = { email: `burst${round}@example.com`, source: 'pricing_page' as const }
      const results = await Promise.all(Array.from({ length: 20 }, () => createLead(h.deps, input)))
      expect(results.filter((r) => r.created).length).toBe(1)
      expect(new Set(results.map((r) => r.lead_id)).size).toBe(1)
      expect((await leadsFor(input.email)).length).toBe(1)
    }
  })

  it('accepts a filled-in honeypot silently and stores nothing', async () => {
    const res = await post({ email: 'bot@example.com', source: 'pricing_page', website: 'http://spam.example' })
    expect(res.status).toBe(201)
    expect(res.body.lead_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(await leadsFor('bot@example.com')).toEqual([])
    const again = await post({ email: 'bot@example.com', source: 'pricing_page', website: 'x' })
    expect(again.status).toBe(201)
    expect(await leadsFor('bot@example.com')).toEqual([])
  })

  it('treats an empty honeypot as a person', async () => {
    const res = await post({ email: 'person@example.com', source: 'pricing_page', website: '' })
    expect(res.status).toBe(201)
    expect((await leadsFor('person@example.com')).length).toBe(1)
  })

  it('needs no credential and ignores one', async () => {
    const res = await post({ email: 'keyed@example.com', source: 'pricing_page' }, freshIp(), { 'x-api-key': 'svc_live_sk_garbage' })
    expect(res.status).toBe(201)
  })

  it('accepts the longest allowed values', async () => {
    const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`
    expect(email.length).toBe(254)
    const res = await post({
      email,
      source: 'pricing_page',
      name: 'n'.repeat(100),
      company: 'c'.repeat(200),
      message: 'm'.repeat(5000),
      plan_interest: 'p'.repeat(50),
    })
    expect(res.status).toBe(201)
  })

  const ok = { email: 'valid@example.com', source: 'pricing_page' }
  const invalid: [string, unknown, string][] = [
    ['missing email', { source: 'pricing_page' }, 'email'],
    ['empty email', { ...ok, email: '' }, 'email'],
    ['malformed email', { ...ok, email: 'not-an-email' }, 'email'],
    ['email with spaces inside', { ...ok, email: 'a b@example.com' }, 'email'],
    ['255-character email', { ...ok, email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com` }, 'email'],
    ['non-string email', { ...ok, email: 5 }, 'email'],
    ['missing source', { email: 'x@example.com' }, 'source'],
    ['unknown source', { ...ok, source: 'newsletter' }, 'source'],
    ['101-character name', { ...ok, name: 'n'.repeat(101) }, 'name'],
    ['non-string name', { ...ok, name: { first: 'x' } }, 'name'],
    ['201-character company', { ...ok, company: 'c'.repeat(201) }, 'company'],
    ['5,001-character message', { ...ok, message: 'm'.repeat(5001) }, 'message'],
    ['51-character plan_interest', { ...ok, plan_interest: 'p'.repeat(51) }, 'plan_interest'],
    ['non-string plan_interest', { ...ok, plan_interest: 3 }, 'plan_interest'],
  ]
  for (const [name, body, path] of invalid) {
    it(`answers 400 validation_failed for a ${name}`, async () => {
      const res = await post(body)
      expect(res.status).toBe(400)
      expect(res.body.error.code).toBe('validation_failed')
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path)
    })
  }

  it('answers 400 invalid_json and 415 for malformed requests', async () => {
    const bad = await h.json('POST', '/v1/leads', {
      rawBody: '{"email"',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.error.code).toBe('invalid_json')
    const text = await h.json('POST', '/v1/leads', {
      rawBody: JSON.stringify(ok),
      headers: { 'content-type': 'text/plain', 'x-forwarded-for': freshIp() },
    })
    expect(text.status).toBe(415)
    const arr = await post([ok])
    expect(arr.status).toBe(400)
  })

  it('limits each client IP (429 with Retry-After), not the others', async () => {
    const ip = freshIp()
    for (let i = 0; i < 30; i++) expect((await post({ email: `flood${i}@example.com`, source: 'pricing_page' }, ip)).status).toBe(201)
    const refused = await post({ email: 'flood-last@example.com', source: 'pricing_page' }, ip)
    expect(refused.status).toBe(429)
    expect(refused.body.error.code).toBe('rate_limited')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(refused.headers.get('ratelimit-remaining')).toBe('0')
    expect(await leadsFor('flood-last@example.com')).toEqual([])
    expect((await post({ email: 'other-ip@example.com', source: 'pricing_page' })).status).toBe(201)
  })
})
