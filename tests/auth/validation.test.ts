import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness'
import { PASSWORD, freshEmail, latestCode, registerAccount } from './support'

// argon2id (64 MiB per hash) is slow on a loaded machine; no assertion here is about time.
setDefaultTimeout(30_000)

let h: Harness
beforeAll(async () => {
  h = await createHarness({ env: { RATE_LIMIT_AUTH_PER_MIN: '100000' } })
}, 30_000)
afterAll(() => h.close())

const post = (path: string, body: unknown) => h.json('POST', path, { body })
const expect400 = (res: { status: number; body: any }, field?: string) => {
  expect(res.status).toBe(400)
  expect(res.body.error.code).toBe('validation_failed')
  if (field) expect(res.body.error.details.map((d: any) => d.path)).toContain(field)
}
const valid = () => ({ email: freshEmail('v'), password: PASSWORD, name: 'N', organization_name: 'Org' })

describe('register validation', () => {
  it('names each missing field', async () => {
    const res = await post('/auth/register', {})
    expect400(res)
    expect(res.body.error.details.map((d: any) => d.path).sort()).toEqual(['email', 'organization_name', 'password'])
  })

  it('refuses bad emails, short and huge passwords, long names and empty organizations', async () => {
    expect400(await post('/auth/register', { ...valid(), email: 'not-an-email' }), 'email')
    expect400(await post('/auth/register', { ...valid(), email: `${'a'.repeat(250)}@example.com` }), 'email')
    expect400(await post('/auth/register', { ...valid(), email: 42 }), 'email')
    expect400(await post('/auth/register', { ...valid(), password: 'short-pw' }), 'password')
    expect400(await post('/auth/register', { ...valid(), password: 'x'.repeat(257) }), 'password')
    expect400(await post('/auth/register', { ...valid(), name: 'n'.repeat(101) }), 'name')
    expect400(await post('/auth/register', { ...valid(), organization_name: '' }), 'organization_name')
    expect400(await post('/auth/register', { ...valid(), organization_name: '   ' }), 'organization_name')
    expect400(await post('/auth/register', { ...valid(), organization_name: 'o'.repeat(101) }), 'organization_name')
    expect400(await post('/auth/register', { ...valid(), organization_name: 'Evil\u0000Corp' }), 'organization_name')
    expect400(await post('/auth/register', { ...valid(), name: 'line\nbreak' }), 'name')
  })

  it('accepts the boundaries: 10- and 256-character passwords, 100-character names', async () => {
    expect((await post('/auth/register', { ...valid(), password: 'p'.repeat(10) })).status).toBe(202)
    expect(
      (await post('/auth/register', { ...valid(), password: 'p'.repeat(256), name: 'n'.repeat(100), organization_name: 'o'.repeat(100) }))
        .status
    ).toBe(202)
  })

  it('stores unicode names, normalises the email and ignores unknown fields', async () => {
    const email = freshEmail('uni')
    const res = await post('/auth/register', {
      email: `  ${email.toUpperCase()}  `,
      password: PASSWORD,
      name: '  Zoë 🦊 ',
      organization_name: 'Ünïcode GmbH',
      role: 'admin',
      plan_id: 'enterprise',
      org_id: h.a.orgId,
    })
    expect(res.status).toBe(202)
    const [row] = await h.deps.db.sql`select u.email, u.name, o.name as org, o.plan_id, m.role, o.org_id
      from users u join memberships m on m.user_id = u.user_id join organizations o on o.org_id = m.org_id where u.email = ${email}`
    expect(row).toMatchObject({ email, name: 'Zoë 🦊', org: 'Ünïcode GmbH', plan_id: 'free', role: 'owner' })
    expect(row!.org_id).not.toBe(h.a.orgId)
  })

  it('stores no name when none is given', async () => {
    const email = freshEmail('noname')
    expect((await post('/auth/register', { email, password: PASSWORD, organization_name: 'Org' })).status).toBe(202)
    const code = await latestCode(h, email)
    const [c] = await h.deps.db
      .sql`select challenge_id from otp_challenges o join users u on u.user_id = o.user_id where u.email = ${email}`
    const res = await post('/auth/verify-otp', { challenge_id: c!.challenge_id, code })
    expect(res.body.user.name).toBeNull()
  })
})

describe('login, verify-otp validation', () => {
  it('names missing fields', async () => {
    const login = await post('/auth/login', {})
    expect400(login)
    expect(login.body.error.details.map((d: any) => d.path).sort()).toEqual(['email', 'password'])
    const verify = await post('/auth/verify-otp', {})
    expect(verify.body.error.details.map((d: any) => d.path).sort()).toEqual(['challenge_id', 'code'])
  })

  it('refuses codes that are not exactly 6 digits and challenge ids that are not UUIDs', async () => {
    const id = crypto.randomUUID()
    for (const code of ['12345', '1234567', '12345a', ' 123456', '１２３４５６', 123456, null, '']) {
      expect400(await post('/auth/verify-otp', { challenge_id: id, code }), 'code')
    }
    for (const challenge_id of ['nope', '123', `${id}x`, 7, "'; drop table users; --"]) {
      expect400(await post('/auth/verify-otp', { challenge_id, code: '123456' }), 'challenge_id')
    }
  })

  it('treats a short password at login as wrong, not as invalid input', async () => {
    const res = await post('/auth/login', { email: h.a.email, password: 'short' })
    expect(res.status).toBe(401)
    expect(res.body.error.code).toBe('invalid_credentials')
    expect400(await post('/auth/login', { email: h.a.email, password: '' }), 'password')
    expect400(await post('/auth/login', { email: h.a.email, password: 'x'.repeat(257) }), 'password')
  })
})

describe('hostile input', () => {
  const odd: unknown[] = [
    null,
    true,
    0,
    -1,
    1e308,
    '',
    ' ',
    'a'.repeat(10_000),
    '\u0000',
    '\ud800',
    '💥'.repeat(300),
    '\u202e',
    '<script>',
    "' or 1=1 --",
    [],
    ['a'],
    {},
    { $gt: '' },
    { toString: 'x' },
  ]
  const bodies: Record<string, Record<string, unknown>> = {
    '/auth/register': { email: 'odd@example.com', password: PASSWORD, name: 'n', organization_name: 'o' },
    '/auth/login': { email: 'odd@example.com', password: PASSWORD },
    '/auth/verify-otp': { challenge_id: crypto.randomUUID(), code: '123456' },
    '/auth/refresh': { refresh_token: 'rt_x' },
    '/auth/logout': { refresh_token: 'rt_x' },
  }

  it('never answers 500 and never echoes a secret, whatever each field holds', async () => {
    for (const [path, base] of Object.entries(bodies)) {
      for (const field of Object.keys(base)) {
        for (const value of odd) {
          const res = await post(path, { ...base, [field]: value })
          expect(res.status, `${path} ${field}=${JSON.stringify(value)?.slice(0, 40)}`).toBeLessThan(500)
          if (res.status >= 400) {
            expect(typeof res.body.error.code).toBe('string')
            expect(JSON.stringify(res.body)).not.toContain(PASSWORD)
            expect(JSON.stringify(res.body)).not.toMatch(/\.ts:\d+|stack/)
          }
        }
      }
    }
  }, 120_000)

  it('never answers 500 for bodies that are not objects', async () => {
    for (const path of Object.keys(bodies)) {
      for (const raw of ['[]', '"x"', '1', 'null', 'true', '{"a":', '\u0000', '{"email":"\\ud800@x.com"}']) {
        const res = await h.json('POST', path, { rawBody: raw, headers: { 'content-type': 'application/json' } })
        expect(res.status).toBe(400)
        expect(['validation_failed', 'invalid_json']).toContain(res.body.error.code)
      }
    }
  })

  it('does not echo the submitted code, password or token in validation errors', async () => {
    const secretish = 'TOPSECRET-value-9'
    for (const [path, body] of [
      ['/auth/register', { email: 'e@example.com', password: secretish.slice(0, 9), organization_name: 'o' }],
      ['/auth/login', { email: 'e@example.com', password: { nested: secretish } }],
      ['/auth/verify-otp', { challenge_id: crypto.randomUUID(), code: `${secretish}` }],
      ['/auth/refresh', { refresh_token: 'x'.repeat(500) + secretish }],
      ['/auth/logout', { refresh_token: 'x'.repeat(500) + secretish }],
    ] as const) {
      const res = await post(path, body)
      expect(res.status).toBe(400)
      expect(JSON.stringify(res.body)).not.toContain(secretish.slice(0, 9))
    }
  })

  it('answers 413 for a body over the limit and 415 for form posts', async () => {
    const res = await h.json('POST', '/auth/register', {
      rawBody: JSON.stringify({ password: 'x'.repeat(2 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(413)
    expect(
      (await h.json('POST', '/auth/login', { rawBody: 'email=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status
    ).toBe(415)
  })

  it('leaves nothing half-written when a register fails validation', async () => {
    const email = freshEmail('half')
    expect400(await post('/auth/register', { email, password: PASSWORD, organization_name: '' }))
    const [{ n }] = (await h.deps.db.sql`select count(*)::int as n from users where email = ${email}`) as any
    expect(n).toBe(0)
    await registerAccount(h, email)
  })
})
