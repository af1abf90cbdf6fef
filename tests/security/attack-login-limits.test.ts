import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { buildApp } from '../../src/server/app'
import { databaseRateLimiter, deleteFullBuckets } from '../../src/server/modules/ratelimit'
import { MemoryRateLimiter } from '../../src/server/platform/ratelimit'
import { RedisRateLimiter } from '../../src/server/platform/ratelimit-redis'
import { createServices } from '../../src/server/services'
import { PASSWORD, freshEmail, latestCode, registerAccount, wrongCode } from '../auth/support'
import { createHarness, type Harness } from '../helpers/harness'

// Issue 15, finding 8: with Redis down the limiter fell back to per-instance memory, and a fresh
// bucket there (another instance, a restart, the outage itself) gave an exhausted account 10 more
// password or code guesses. Per-account buckets (15-minute windows) now live in the database.
setDefaultTimeout(60_000)

let h: Harness
beforeAll(async () => {
  h = await createHarness({ env: { TRUST_PROXY: 'true', RATE_LIMIT_AUTH_PER_MIN: '1000' } })
}, 60_000)
afterAll(() => h.close())

/** A second instance on the same database whose rate limiter is Redis that cannot be reached. */
function instanceWithRedisDown() {
  const limiter = new RedisRateLimiter('redis://127.0.0.1:1', { commandTimeoutMs: 200, cooldownMs: 60_000, log: h.deps.log })
  const { config, db, log, clock, mailer, tokens } = h.deps
  const services = createServices({ config, db, log, clock, mailer, tokens, limiter })
  return { app: buildApp(services), close: () => limiter.close() }
}

/** A restarted (or another) instance: empty per-instance memory. */
function freshInstance() {
  const { config, db, log, clock, mailer, tokens } = h.deps
  const services = createServices({ config, db, log, clock, mailer, tokens, limiter: new MemoryRateLimiter(() => clock.now().getTime()) })
  return { app: buildApp(services), close: async () => {} }
}

let ip = 0
const post = (app: { handle(r: Request): Promise<Response> }, path: string, body: unknown) =>
  app.handle(
    new Request(`http://localhost${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${++ip % 250}` },
      body: JSON.stringify(body),
    })
  )

describe('per-account limits survive a Redis outage and a restart', () => {
  it('an account whose 10 login attempts are spent stays refused on an instance with Redis down, and on a fresh one', async () => {
    const org = await h.seedOrg('Target')
    for (let i = 0; i < 10; i++) expect((await post(h.app, '/auth/login', { email: org.email, password: `guess-${i}` })).status).toBe(401)
    expect((await post(h.app, '/auth/login', { email: org.email, password: 'guess-x' })).status).toBe(429)

    const down = instanceWithRedisDown()
    const fresh = freshInstance()
    try {
      const a = await post(down.app, '/auth/login', { email: org.email, password: org.password })
      const b = await post(fresh.app, '/auth/login', { email: org.email, password: org.password })
      expect(a.status).toBe(429)
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(b.status).toBe(429)
    } finally {
      await down.close()
    }
    // The window still refills: 90 s later one attempt (10 per 15 minutes) is allowed again.
    h.clock.advance(90_000)
    expect((await post(h.app, '/auth/login', { email: org.email, password: org.password })).status).toBe(202)
  })

  it('code guesses are limited across instances too', async () => {
    const { email, challengeId } = await registerAccount(h, freshEmail('otp'), {})
    const code = await latestCode(h, email)
    const fresh = freshInstance()
    // Five guesses on each of two instances spend the account's ten.
    for (let i = 0; i < 10; i++) {
      const app = i % 2 ? fresh.app : h.app
      expect((await post(app, '/auth/verify-otp', { challenge_id: challengeId, code: wrongCode(code) })).status).toBe(401)
    }
    expect((await post(fresh.app, '/auth/verify-otp', { challenge_id: challengeId, code })).status).toBe(429)
    expect((await post(h.app, '/auth/verify-otp', { challenge_id: challengeId, code })).status).toBe(429)
  })

  it('stores no e-mail address, and full buckets are purged', async () => {
    const email = freshEmail('stored')
    await post(h.app, '/auth/login', { email, password: PASSWORD })
    const rows = await h.deps.db.sql<{ bucket_key: string }[]>`select bucket_key from rate_limit_buckets`
    expect(rows.length).toBeGreaterThan(0)
    for (const r of rows) expect(r.bucket_key).toMatch(/^[0-9a-f]{64}$/)
    h.clock.advance(16 * 60_000)
    expect(await deleteFullBuckets(h.deps.db.sql, h.clock.now())).toBe(rows.length)
  })
})

describe('the issue-15 sweep attack through the app (finding 1)', () => {
  it('10,000 cheap rate-limited requests do not give an exhausted account more guesses', async () => {
    const org = await h.seedOrg('Swept')
    for (let i = 0; i < 10; i++) expect((await post(h.app, '/auth/login', { email: org.email, password: `guess-${i}` })).status).toBe(401)
    expect((await post(h.app, '/auth/login', { email: org.email, password: 'guess-x' })).status).toBe(429)
    // Idle longer than the per-minute buckets' window, then 10,000 requests that each take a token.
    h.clock.advance(61_000)
    const started = performance.now()
    const statuses = new Map<number, number>()
    for (let i = 0; i < 10_000; i++) {
      const res = await h.request('POST', '/v1/demo/live-score', { body: {}, headers: { 'x-forwarded-for': '203.0.113.99' } })
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
    }
    const seconds = (performance.now() - started) / 1000
    const after = await post(h.app, '/auth/login', { email: org.email, password: org.password })
    console.log(
      `[attack-login-limits] 10,000 live-score requests in ${seconds.toFixed(1)} s (${[...statuses].map(([s, n]) => `${n}× ${s}`).join(', ')}), then the exhausted account's login: ${after.status}`
    )
    expect(after.status).toBe(429)
  })
})

describe('databaseRateLimiter', () => {
  it('takes tokens atomically: 50 concurrent takes of a 10-token bucket let exactly 10 through', async () => {
    const limiter = databaseRateLimiter({ db: h.deps.db, now: () => h.clock.now() })
    const key = `concurrent:${crypto.randomUUID()}`
    const results = await Promise.all(Array.from({ length: 50 }, () => limiter.take(key, 10, 15 * 60_000)))
    expect(results.filter((d) => d.allowed).length).toBe(10)
    const refused = results.find((d) => !d.allowed)!
    expect(refused.retryAfterSeconds).toBe(90)
  })
})
