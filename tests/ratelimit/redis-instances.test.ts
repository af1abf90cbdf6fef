import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { buildApp } from '../../src/server/app'
import { createServices } from '../../src/server/services'
import { RedisRateLimiter } from '../../src/server/platform/ratelimit-redis'
import { createHarness, type Harness } from '../helpers/harness'
import { dropPrefix, redisAvailable, testRedisUrl, uniquePrefix } from './redis'

// Database set-up (argon2, migrations) is slow on a loaded machine; nothing here asserts on time.
setDefaultTimeout(60_000)

const available = await redisAvailable('two app instances sharing Redis')
const prefix = uniquePrefix('instances')
let h: Harness
let limiters: RedisRateLimiter[] = []
let instances: ReturnType<typeof buildApp>[] = []

beforeAll(async () => {
  if (!available) return
  h = await createHarness({ env: { TRUST_PROXY: 'true', RATE_LIMIT_IP_PER_MIN: '60' } })
  // Two instances of the service on one database and one Redis, as behind a load balancer.
  // The harness clock stands still, so no token refills however slowly the calls run.
  const now = () => h.clock.now().getTime()
  limiters = [new RedisRateLimiter(testRedisUrl(), { prefix, now }), new RedisRateLimiter(testRedisUrl(), { prefix, now })]
  instances = limiters.map((limiter) => buildApp(createServices({ ...h.deps, limiter })))
}, 60_000)
afterAll(async () => {
  if (!available) return
  await Promise.all(limiters.map((l) => l.close()))
  await h.close()
  await dropPrefix(prefix)
})

const features = Array.from({ length: 34 }, (_, i) => i / 34)
const call = (instance: number, ip: string, path = '/v1/demo/live-score', body: unknown = { features }) =>
  instances[instance]!.handle(
    new Request(`http://localhost${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      body: JSON.stringify(body),
    })
  )

describe.skipIf(!available)('rate limits shared by two instances through Redis', () => {
  it('refuses the 61st live-score call from one IP across both instances, not another IP', async () => {
    for (let i = 0; i < 60; i++) expect((await call(i % 2, '203.0.113.7')).status).toBe(200)
    for (const instance of [0, 1]) {
      const refused = await call(instance, '203.0.113.7')
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(refused.headers.get('ratelimit-limit')).toBe('60')
      expect(refused.headers.get('ratelimit-remaining')).toBe('0')
      expect((await refused.json()).error.code).toBe('rate_limited')
    }
    expect((await call(0, '203.0.113.8')).status).toBe(200)
    expect((await call(1, '203.0.113.9')).status).toBe(200)
  })

  it('shares the per-IP lead bucket too', async () => {
    for (let i = 0; i < 60; i++) {
      const res = await call(i % 2, '203.0.113.20', '/v1/leads', { email: `shared${i}@example.com`, source: 'pricing_page' })
      expect(res.status).toBe(201)
    }
    expect((await call(1, '203.0.113.20', '/v1/leads', { email: 'one-more@example.com', source: 'pricing_page' })).status).toBe(429)
  })
})
