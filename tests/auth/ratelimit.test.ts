import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness'
import { PASSWORD, freshEmail, latestCode, registerAccount, wrongCode } from './support'

// argon2id (64 MiB per hash) is slow on a loaded machine; no assertion here is about time.
setDefaultTimeout(30_000)

// Per-IP limit 3/min so tests stay short; per-account limits are the module's own (10 per 15 min).
let h: Harness
let strict: Harness
beforeAll(async () => {
  h = await createHarness({ env: { TRUST_PROXY: '2', RATE_LIMIT_AUTH_PER_MIN: '3' } })
  strict = await createHarness({ env: { RATE_LIMIT_AUTH_PER_MIN: '3' }, seed: false })
}, 60_000)
afterAll(async () => {
  await h.close()
  await strict.close()
})

let ipCounter = 0
const freshIp = () => `203.0.113.${++ipCounter}`
// The client, then our proxy 10.0.0.1: two trusted hops (the socket, then 10.0.0.1), read from the right.
const from = (ip: string) => ({ 'x-forwarded-for': `${ip}, 10.0.0.1` })
const post = (path: string, body: unknown, ip: string, harness = h) => harness.json('POST', path, { body, headers: from(ip) })
const expect429 = (res: { status: number; body: any; headers: Headers }) => {
  expect(res.status).toBe(429)
  expect(res.body.error.code).toBe('rate_limited')
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
}

describe('per-IP limits', () => {
  it('limits login per client IP and lets other IPs through', async () => {
    const ip = freshIp()
    for (let i = 0; i < 3; i++) expect((await post('/auth/login', { email: freshEmail(), password: PASSWORD }, ip)).status).toBe(401)
    const limited = await post('/auth/login', { email: h.a.email, password: h.a.password }, ip)
    expect429(limited)
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60)
    expect((await post('/auth/login', { email: freshEmail(), password: PASSWORD }, freshIp())).status).toBe(401)
    h.clock.advance(60_000)
    expect((await post('/auth/login', { email: freshEmail(), password: PASSWORD }, ip)).status).toBe(401)
  })

  it('limits register per client IP', async () => {
    const ip = freshIp()
    for (let i = 0; i < 3; i++) {
      expect((await post('/auth/register', { email: freshEmail(), password: PASSWORD, organization_name: 'O' }, ip)).status).toBe(202)
    }
    const email = freshEmail('limited')
    expect429(await post('/auth/register', { email, password: PASSWORD, organization_name: 'O' }, ip))
    const [{ n }] = (await h.deps.db.sql`select count(*)::int as n from users where email = ${email}`) as any
    expect(n).toBe(0)
  })

  it('limits verify-otp per client IP', async () => {
    const ip = freshIp()
    for (let i = 0; i < 3; i++) {
      expect((await post('/auth/verify-otp', { challenge_id: crypto.randomUUID(), code: '000000' }, ip)).status).toBe(401)
    }
    expect429(await post('/auth/verify-otp', { challenge_id: crypto.randomUUID(), code: '000000' }, ip))
  })

  it('ignores X-Forwarded-For unless TRUST_PROXY is set, so a client cannot pick a fresh bucket', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await post('/auth/login', { email: freshEmail(), password: PASSWORD }, freshIp(), strict)).status).toBe(401)
    }
    expect429(await post('/auth/login', { email: freshEmail(), password: PASSWORD }, freshIp(), strict))
  })
})

describe('per-account limits', () => {
  it('limits login attempts on one account across many IPs, even with the right password', async () => {
    const org = await h.seedOrg('Target')
    for (let i = 0; i < 10; i++) {
      expect((await post('/auth/login', { email: org.email, password: `guess-number-${i}` }, freshIp())).status).toBe(401)
    }
    expect429(await post('/auth/login', { email: org.email.toUpperCase(), password: org.password }, freshIp()))
    // Another account is not affected.
    expect((await post('/auth/login', { email: h.b.email, password: h.b.password }, freshIp())).status).toBe(202)
  })

  it('limits unknown emails the same way (the limit reveals nothing)', async () => {
    const email = freshEmail('ghost')
    for (let i = 0; i < 10; i++) expect((await post('/auth/login', { email, password: PASSWORD }, freshIp())).status).toBe(401)
    expect429(await post('/auth/login', { email, password: PASSWORD }, freshIp()))
  })

  it('limits code guesses per account across IPs and challenges', async () => {
    const { email, challengeId } = await registerAccount(h, freshEmail(), {})
    const code = await latestCode(h, email)
    for (let i = 0; i < 10; i++) {
      expect((await post('/auth/verify-otp', { challenge_id: challengeId, code: wrongCode(code) }, freshIp())).status).toBe(401)
    }
    expect429(await post('/auth/verify-otp', { challenge_id: challengeId, code }, freshIp()))
  })
})

describe('refresh and logout ceiling per IP', () => {
  it('answers 429 with Retry-After past AUTH_PER_MIN × 6 token calls a minute from one IP, not from another', async () => {
    const h3 = await createHarness({ seed: false, env: { TRUST_PROXY: 'true', RATE_LIMIT_AUTH_PER_MIN: '2' } })
    try {
      const call = (ip: string) =>
        h3.json('POST', '/auth/logout', { headers: { 'x-forwarded-for': ip }, body: { refresh_token: 'rt_' + 'a'.repeat(52) } })
      for (let i = 0; i < 12; i++) expect((await call('203.0.113.9')).status).toBe(204)
      const limited = await call('203.0.113.9')
      expect(limited.status).toBe(429)
      expect(limited.body.error.code).toBe('rate_limited')
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
      expect((await call('203.0.113.10')).status).toBe(204)
    } finally {
      await h3.close()
    }
  })
})
