import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness'
import { PASSWORD, freshEmail, latestCode, outbox, registerAccount, wrongCode } from './support'

// argon2id (64 MiB per hash) is slow on a loaded machine; no assertion here is about time.
setDefaultTimeout(30_000)

let h: Harness
beforeAll(async () => {
  h = await createHarness({ env: { RATE_LIMIT_AUTH_PER_MIN: '10000' } })
}, 30_000)
afterAll(() => h.close())

const verify = (challenge_id: string, code: string) => h.json('POST', '/auth/verify-otp', { body: { challenge_id, code } })
const expectInvalidOtp = (res: { status: number; body: any }) => {
  expect(res.status).toBe(401)
  expect(res.body.error.code).toBe('invalid_otp')
}

describe('one-time codes', () => {
  it('kills a challenge after 5 wrong codes, even for the right one', async () => {
    const { email, challengeId } = await registerAccount(h)
    const code = await latestCode(h, email)
    for (let i = 0; i < 5; i++) expectInvalidOtp(await verify(challengeId, wrongCode(code)))
    expectInvalidOtp(await verify(challengeId, code))
    const [row] = await h.deps.db.sql`select attempts, consumed_at from otp_challenges where challenge_id = ${challengeId}`
    expect(row).toEqual({ attempts: 5, consumed_at: null })
  })

  it('still accepts the right code after 4 wrong ones', async () => {
    const { email, challengeId } = await registerAccount(h)
    const code = await latestCode(h, email)
    for (let i = 0; i < 4; i++) expectInvalidOtp(await verify(challengeId, wrongCode(code)))
    expect((await verify(challengeId, code)).status).toBe(200)
  })

  it('refuses a code after 10 minutes', async () => {
    const { email, challengeId } = await registerAccount(h)
    const code = await latestCode(h, email)
    h.clock.advance(10 * 60 * 1000 + 1000)
    expectInvalidOtp(await verify(challengeId, code))
  })

  it('accepts a code just before it expires', async () => {
    const { email, challengeId } = await registerAccount(h)
    const code = await latestCode(h, email)
    h.clock.advance(10 * 60 * 1000 - 1000)
    expect((await verify(challengeId, code)).status).toBe(200)
  })

  it('works once only', async () => {
    const { email, challengeId } = await registerAccount(h)
    const code = await latestCode(h, email)
    expect((await verify(challengeId, code)).status).toBe(200)
    expectInvalidOtp(await verify(challengeId, code))
  })

  it('invalidates the previous challenge when a new one starts for the same user', async () => {
    const email = freshEmail('supersede')
    const first = await registerAccount(h, email)
    const firstCode = await latestCode(h, email)
    const second = await h.json('POST', '/auth/login', { body: { email, password: PASSWORD } })
    expect(second.status).toBe(202)
    const secondCode = await latestCode(h, email)
    expectInvalidOtp(await verify(first.challengeId, firstCode))
    // The old code does not open the new challenge either (unless the CSPRNG repeated it).
    if (firstCode !== secondCode) expectInvalidOtp(await verify(second.body.challenge_id, firstCode))
    expect((await verify(second.body.challenge_id, secondCode)).status).toBe(200)
  })

  it("does not let one challenge's code open another user's challenge", async () => {
    const one = await registerAccount(h)
    const two = await registerAccount(h)
    const codeOne = await latestCode(h, one.email)
    const codeTwo = await latestCode(h, two.email)
    if (codeOne !== codeTwo) expectInvalidOtp(await verify(two.challengeId, codeOne))
    expect((await verify(two.challengeId, codeTwo)).status).toBe(200)
  })

  it('sends at most 3 codes per address per 10 minutes, then 429 with Retry-After', async () => {
    const email = freshEmail('flood')
    await registerAccount(h, email)
    h.clock.advance(60_000)
    expect((await h.json('POST', '/auth/login', { body: { email, password: PASSWORD } })).status).toBe(202)
    expect((await h.json('POST', '/auth/login', { body: { email, password: PASSWORD } })).status).toBe(202)
    const fourth = await h.json('POST', '/auth/login', { body: { email, password: PASSWORD } })
    expect(fourth.status).toBe(429)
    expect(fourth.body.error.code).toBe('rate_limited')
    // The oldest of the three leaves the window 9 minutes from now.
    expect(fourth.headers.get('retry-after')).toBe(String(9 * 60))
    expect(await outbox(h, email)).toHaveLength(3)
    // A refused sign-up restart writes nothing either.
    const again = await h.json('POST', '/auth/register', { body: { email, password: 'another-password', organization_name: 'Other' } })
    expect(again.status).toBe(429)
    expect((await h.json('POST', '/auth/login', { body: { email, password: PASSWORD } })).status).toBe(429)

    h.clock.advance(9 * 60 * 1000 + 1000)
    expect((await h.json('POST', '/auth/login', { body: { email, password: PASSWORD } })).status).toBe(202)
    expect(await outbox(h, email)).toHaveLength(4)
  })

  it('counts sign-up attempts on an existing email toward the same limit (mail flood guard)', async () => {
    const org = await h.seedOrg('Flooded')
    for (let i = 0; i < 3; i++) {
      expect(
        (await h.json('POST', '/auth/register', { body: { email: org.email, password: PASSWORD, organization_name: 'X' } })).status
      ).toBe(202)
    }
    const res = await h.json('POST', '/auth/register', { body: { email: org.email, password: PASSWORD, organization_name: 'X' } })
    expect(res.status).toBe(429)
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await outbox(h, org.email)).toHaveLength(3)
  })

  it('accepts the challenge id in upper case', async () => {
    const { email, challengeId } = await registerAccount(h)
    const code = await latestCode(h, email)
    expect((await verify(challengeId.toUpperCase(), code)).status).toBe(200)
  })

  it('uses a fresh random code per challenge (not derived from the time or the user)', async () => {
    const codes = new Set<string>()
    for (let i = 0; i < 6; i++) {
      const { email } = await registerAccount(h)
      codes.add(await latestCode(h, email))
    }
    // Six uniform 6-digit codes collide with probability < 2e-5.
    expect(codes.size).toBe(6)
  })

  it('counts concurrent wrong guesses exactly: never more than 5 get evaluated', async () => {
    const { email, challengeId } = await registerAccount(h)
    const code = await latestCode(h, email)
    const results = await Promise.all(Array.from({ length: 8 }, () => verify(challengeId, wrongCode(code))))
    for (const res of results) expectInvalidOtp(res)
    const [row] = await h.deps.db.sql`select attempts from otp_challenges where challenge_id = ${challengeId}`
    expect(row!.attempts).toBe(5)
    expectInvalidOtp(await verify(challengeId, code))
  })

  it('lets a code through once when it is presented twice at the same time', async () => {
    const { email, challengeId } = await registerAccount(h)
    const code = await latestCode(h, email)
    const results = await Promise.all([verify(challengeId, code), verify(challengeId, code), verify(challengeId, code)])
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401])
    const [{ n }] = (await h.deps.db
      .sql`select count(*)::int as n from refresh_tokens r join users u on u.user_id = r.user_id where u.email = ${email}`) as any
    expect(n).toBe(1)
  })

  it('survives a login racing the verification of the same account', async () => {
    const { email, challengeId } = await registerAccount(h)
    const code = await latestCode(h, email)
    const [verified, login] = await Promise.all([
      verify(challengeId, code),
      h.json('POST', '/auth/login', { body: { email, password: PASSWORD } }),
    ])
    expect([200, 401]).toContain(verified.status)
    expect(login.status).toBe(202)
  })
})
