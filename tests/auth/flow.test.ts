import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout, spyOn } from 'bun:test'
import { passwords } from '../../src/server/modules/auth/passwords'
import { createHarness, type Harness } from '../helpers/harness'
import { PASSWORD, freshEmail, latestCode, outbox, registerAccount, wrongCode, dashboardProbe } from './support'

// argon2id (64 MiB per hash) is slow on a loaded machine; no assertion here is about time.
setDefaultTimeout(30_000)

let h: Harness
let probe: ReturnType<typeof dashboardProbe>
beforeAll(async () => {
  h = await createHarness({ env: { RATE_LIMIT_AUTH_PER_MIN: '10000' } })
  probe = dashboardProbe(h)
}, 30_000)
afterAll(() => h.close())

const whoAmI = async (token: string) => {
  const res = await probe.handle(new Request('http://localhost/probe/dashboard', { headers: { authorization: `Bearer ${token}` } }))
  return { status: res.status, body: await res.json() }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe('the whole account flow', () => {
  it('register → code by mail → tokens → dashboard route → refresh → logout, with no secret in any log line', async () => {
    const email = freshEmail('flow')
    const reg = await h.json('POST', '/auth/register', {
      body: { email: `  ${email.toUpperCase()} `, password: PASSWORD, name: 'Ada Lovelace', organization_name: 'Analytical Engines' },
    })
    expect(reg.status).toBe(202)
    expect(Object.keys(reg.body).sort()).toEqual(['challenge_id', 'expires_at', 'status'])
    expect(reg.body.status).toBe('otp_required')
    expect(reg.body.challenge_id).toMatch(UUID)
    expect(new Date(reg.body.expires_at).getTime() - h.clock.now().getTime()).toBe(10 * 60 * 1000)
    expect(reg.body.expires_at).toEndWith('Z')

    // Not usable before the code: the user exists, unverified, owner of a new free organization.
    const [user] = await h.deps.db.sql`select u.user_id, u.email_verified_at, m.role, o.plan_id, o.name
      from users u join memberships m on m.user_id = u.user_id join organizations o on o.org_id = m.org_id where u.email = ${email}`
    expect(user).toMatchObject({ email_verified_at: null, role: 'owner', plan_id: 'free', name: 'Analytical Engines' })

    const mails = await outbox(h, email)
    expect(mails).toHaveLength(1)
    expect(mails[0]!.to).toBe(email)
    const code = await latestCode(h, email)
    expect(code).toMatch(/^\d{6}$/)
    const [stored] = await h.deps.db.sql`select code_hash from otp_challenges where challenge_id = ${reg.body.challenge_id}`
    expect(stored!.code_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(stored!.code_hash).not.toContain(code)

    const verified = await h.json('POST', '/auth/verify-otp', { body: { challenge_id: reg.body.challenge_id, code } })
    expect(verified.status).toBe(200)
    expect(verified.headers.get('cache-control')).toBe('no-store')
    const t = verified.body
    expect(t.token_type).toBe('Bearer')
    expect(t.expires_in).toBe(900)
    expect(t.refresh_token).toMatch(/^rt_[a-z2-7]{52}$/)
    expect(t.user).toEqual({ user_id: user!.user_id, email, name: 'Ada Lovelace' })
    expect(t.organization).toMatchObject({ name: 'Analytical Engines', plan_id: 'free', role: 'owner' })
    expect(t.organization.org_id).toMatch(UUID)
    const [after] = await h.deps.db.sql`select email_verified_at from users where user_id = ${user!.user_id}`
    expect(after!.email_verified_at).toBeInstanceOf(Date)

    const me = await whoAmI(t.access_token)
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({ kind: 'jwt', orgId: t.organization.org_id, userId: user!.user_id, role: 'owner', planId: 'free' })

    const refreshed = await h.json('POST', '/auth/refresh', { body: { refresh_token: t.refresh_token } })
    expect(refreshed.status).toBe(200)
    expect(refreshed.headers.get('cache-control')).toBe('no-store')
    expect(refreshed.body.refresh_token).not.toBe(t.refresh_token)
    expect(refreshed.body.organization).toEqual(t.organization)
    expect((await whoAmI(refreshed.body.access_token)).status).toBe(200)

    const out = await h.request('POST', '/auth/logout', { body: { refresh_token: refreshed.body.refresh_token } })
    expect(out.status).toBe(204)
    expect(await out.text()).toBe('')
    expect(out.headers.get('x-request-id')).toBeString()
    const dead = await h.json('POST', '/auth/refresh', { body: { refresh_token: refreshed.body.refresh_token } })
    expect(dead.status).toBe(401)
    expect(dead.body.error.code).toBe('unauthorized')

    // Nothing secret was ever written out, neither raw nor in a form a log reader could reverse.
    const allLogs = h.logs.join('\n')
    expect(h.logs.length).toBeGreaterThan(5)
    // The code is matched as a whole token: six digits may occur by chance inside a hex request id.
    expect(allLogs).not.toMatch(new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`))
    for (const secret of [PASSWORD, t.refresh_token, t.access_token, refreshed.body.refresh_token, refreshed.body.access_token]) {
      expect(allLogs).not.toContain(secret)
    }
    const [tokenRows] = await h.deps.db.sql`select count(*)::int as n from refresh_tokens where token_hash = ${t.refresh_token}`
    expect(tokenRows!.n).toBe(0)
  })

  it('logs in an existing verified user with password and code', async () => {
    const login = await h.json('POST', '/auth/login', { body: { email: h.a.email.toUpperCase(), password: h.a.password } })
    expect(login.status).toBe(202)
    expect(login.body.status).toBe('otp_required')
    const code = await latestCode(h, h.a.email)
    const [newest] = await outbox(h, h.a.email)
    expect(newest!.text).toContain(code)
    expect(newest!.text.length).toBeLessThan(300)
    const res = await h.json('POST', '/auth/verify-otp', { body: { challenge_id: login.body.challenge_id, code } })
    expect(res.status).toBe(200)
    expect(res.body.organization).toMatchObject({ org_id: h.a.orgId, role: 'owner' })
    expect(res.body.user).toMatchObject({ user_id: h.a.userId, email: h.a.email })
    expect((await whoAmI(res.body.access_token)).body.orgId).toBe(h.a.orgId)
  })

  it('lets an unverified account log in, and the code then marks it verified', async () => {
    const { email, challengeId } = await registerAccount(h)
    const login = await h.json('POST', '/auth/login', { body: { email, password: PASSWORD } })
    expect(login.status).toBe(202)
    const code = await latestCode(h, email)
    // The login superseded the sign-up challenge.
    expect((await h.json('POST', '/auth/verify-otp', { body: { challenge_id: challengeId, code } })).status).toBe(401)
    const res = await h.json('POST', '/auth/verify-otp', { body: { challenge_id: login.body.challenge_id, code } })
    expect(res.status).toBe(200)
    const [row] = await h.deps.db.sql`select email_verified_at from users where email = ${email}`
    expect(row!.email_verified_at).toBeInstanceOf(Date)
  })

  it('never hands out tokens from register or login', async () => {
    const reg = await registerAccount(h)
    const login = await h.json('POST', '/auth/login', { body: { email: reg.email, password: PASSWORD } })
    for (const body of [reg.body, login.body]) {
      expect(body).not.toHaveProperty('access_token')
      expect(body).not.toHaveProperty('refresh_token')
    }
  })
})

describe('no account enumeration', () => {
  it('answers an existing email on register with the same 202 shape, creates nothing and mails the owner', async () => {
    const [before] = await h.deps.db
      .sql`select (select count(*)::int from users) as users, (select count(*)::int from organizations) as orgs`
    const res = await h.json('POST', '/auth/register', {
      body: { email: h.b.email, password: 'attacker-chosen-pass', organization_name: 'Hijack' },
    })
    expect(res.status).toBe(202)
    expect(Object.keys(res.body).sort()).toEqual(['challenge_id', 'expires_at', 'status'])
    expect(res.body.status).toBe('otp_required')
    expect(res.body.challenge_id).toMatch(UUID)
    expect(new Date(res.body.expires_at).getTime() - h.clock.now().getTime()).toBe(10 * 60 * 1000)
    const [after] = await h.deps.db
      .sql`select (select count(*)::int from users) as users, (select count(*)::int from organizations) as orgs`
    expect(after).toEqual(before!)

    const [mail] = await outbox(h, h.b.email)
    expect(mail!.text).toContain('already exists')
    expect(mail!.text).toContain('Log in')
    expect(mail!.text).not.toMatch(/\d{6}/)

    // The owner's password is untouched, and the decoy challenge cannot verify with any code.
    for (const code of ['000000', '123456', '999999']) {
      const v = await h.json('POST', '/auth/verify-otp', { body: { challenge_id: res.body.challenge_id, code } })
      expect(v.status).toBe(401)
      expect(v.body.error.code).toBe('invalid_otp')
    }
    expect((await h.json('POST', '/auth/login', { body: { email: h.b.email, password: h.b.password } })).status).toBe(202)
    expect((await h.json('POST', '/auth/login', { body: { email: h.b.email, password: 'attacker-chosen-pass' } })).status).toBe(401)
  })

  it("does not let a decoy cancel the owner's pending login", async () => {
    const login = await h.json('POST', '/auth/login', { body: { email: h.a.email, password: h.a.password } })
    const code = await latestCode(h, h.a.email)
    expect(
      (await h.json('POST', '/auth/register', { body: { email: h.a.email, password: 'whatever-pass-1', organization_name: 'X' } })).status
    ).toBe(202)
    const res = await h.json('POST', '/auth/verify-otp', { body: { challenge_id: login.body.challenge_id, code } })
    expect(res.status).toBe(200)
  })

  it('restarts a sign-up that was never verified instead of locking the address', async () => {
    const squatted = await registerAccount(h, freshEmail('squat'), { password: 'squatter-password', organization_name: 'Squat' })
    const again = await registerAccount(h, squatted.email, { password: 'owner-real-password', organization_name: 'Real Co' })
    const code = await latestCode(h, squatted.email)
    expect((await h.json('POST', '/auth/verify-otp', { body: { challenge_id: squatted.challengeId, code } })).status).toBe(401)
    const res = await h.json('POST', '/auth/verify-otp', { body: { challenge_id: again.challengeId, code } })
    expect(res.status).toBe(200)
    expect(res.body.organization.name).toBe('Real Co')
    const [{ n }] = (await h.deps.db.sql`select count(*)::int as n from users where email = ${squatted.email}`) as any
    expect(n).toBe(1)
    expect((await h.json('POST', '/auth/login', { body: { email: squatted.email, password: 'squatter-password' } })).status).toBe(401)
    expect((await h.json('POST', '/auth/login', { body: { email: squatted.email, password: 'owner-real-password' } })).status).toBe(202)
  })

  it('creates exactly one account when the same new email registers concurrently', async () => {
    const email = freshEmail('race')
    const results = await Promise.all(
      [1, 2, 3].map((i) => h.json('POST', '/auth/register', { body: { email, password: PASSWORD, organization_name: `Race ${i}` } }))
    )
    for (const res of results) expect(res.status).toBe(202)
    const [{ users }] = (await h.deps.db.sql`select count(*)::int as users from users where email = ${email}`) as any
    expect(users).toBe(1)
    const [{ orgs }] = (await h.deps.db.sql`select count(*)::int as orgs from organizations where name like 'Race %'`) as any
    expect(orgs).toBe(1)
  })

  it('gives an unknown email and a wrong password the identical 401 body', async () => {
    const unknown = await h.json('POST', '/auth/login', { body: { email: freshEmail('nobody'), password: 'some-password-here' } })
    const wrong = await h.json('POST', '/auth/login', { body: { email: h.b.email, password: 'some-password-here' } })
    expect(unknown.status).toBe(401)
    expect(wrong.status).toBe(401)
    expect(unknown.body.error.code).toBe('invalid_credentials')
    const strip = (b: any) => ({ ...b.error, request_id: undefined })
    expect(strip(unknown.body)).toEqual(strip(wrong.body))
    expect([...unknown.headers.keys()].sort()).toEqual([...wrong.headers.keys()].sort())
  })

  it('pays for one argon2id verify on both paths (unknown email against a dummy hash)', async () => {
    const spy = spyOn(passwords, 'verify')
    try {
      await h.json('POST', '/auth/login', { body: { email: freshEmail('ghost'), password: 'some-password-here' } })
      expect(spy).toHaveBeenCalledTimes(1)
      expect(spy.mock.calls[0]![1]).toStartWith('$argon2id$')
      const [real] = await h.deps.db.sql`select password_hash from users where user_id = ${h.b.userId}`
      // Same algorithm and cost parameters as a real user's hash.
      expect(spy.mock.calls[0]![1].split('$').slice(0, 4)).toEqual(real!.password_hash.split('$').slice(0, 4))
      await h.json('POST', '/auth/login', { body: { email: h.b.email, password: 'some-password-here' } })
      expect(spy).toHaveBeenCalledTimes(2)
      expect(spy.mock.calls[1]![1]).toBe(real!.password_hash)
    } finally {
      spy.mockRestore()
    }
  })

  it('hashes the password on register whether or not the email is taken', async () => {
    const spy = spyOn(passwords, 'hash')
    try {
      await registerAccount(h)
      await h.json('POST', '/auth/register', { body: { email: h.a.email, password: PASSWORD, organization_name: 'X' } })
      expect(spy).toHaveBeenCalledTimes(2)
    } finally {
      spy.mockRestore()
    }
  })

  it('answers a wrong code on a real challenge exactly like a made-up challenge id', async () => {
    const { email, challengeId } = await registerAccount(h)
    const code = await latestCode(h, email)
    const real = await h.json('POST', '/auth/verify-otp', { body: { challenge_id: challengeId, code: wrongCode(code) } })
    const fake = await h.json('POST', '/auth/verify-otp', { body: { challenge_id: crypto.randomUUID(), code } })
    expect(real.status).toBe(401)
    expect({ ...real.body.error, request_id: 0 }).toEqual({ ...fake.body.error, request_id: 0 })
  })
})

describe('mail outage', () => {
  it('answers 503 with Retry-After when the code cannot be mailed, and the challenge is closed', async () => {
    const h2 = await createHarness({ seed: false })
    try {
      const failing = {
        transport: 'smtp' as const,
        send: async () => {
          throw new Error('smtp down')
        },
      }
      // The mailer object is handed to the modules at start-up: swap its send, not the object.
      const original = h2.deps.mailer.send
      h2.deps.mailer.send = failing.send
      const email = 'mailless@example.test'
      const res = await h2.json('POST', '/auth/register', { body: { email, password: 'long-enough-pass', organization_name: 'Mailless' } })
      expect(res.status).toBe(503)
      expect(res.body.error.code).toBe('unavailable')
      expect(res.headers.get('retry-after')).toBe('60')
      const [row] = await h2.deps.db
        .sql`select c.invalidated_at from otp_challenges c join users u using (user_id) where u.email = ${email}`
      expect(row!.invalidated_at).not.toBeNull()
      h2.deps.mailer.send = original
      // Once mail works again, registering again restarts the unverified sign-up.
      const retry = await h2.json('POST', '/auth/register', {
        body: { email, password: 'long-enough-pass', organization_name: 'Mailless' },
      })
      expect(retry.status).toBe(202)
    } finally {
      await h2.close()
    }
  })
})
