import { afterAll, describe, expect, it } from 'bun:test'
import Redis from 'ioredis'
import { createLogger } from '../../src/server/platform/log'
import { RedisRateLimiter } from '../../src/server/platform/ratelimit-redis'
import { dropPrefix, redisAvailable, testRedisUrl, uniquePrefix } from './redis'

const MINUTE = 60_000
const available = await redisAvailable('RedisRateLimiter')
const prefix = uniquePrefix('limiter')
const open: RedisRateLimiter[] = []
// A frozen clock unless a test moves it: no bucket refills while a slow machine runs the test.
const frozen = 7_000_000
const limiter = (options: ConstructorParameters<typeof RedisRateLimiter>[1] = {}) => {
  const l = new RedisRateLimiter(testRedisUrl(), { prefix, now: () => frozen, ...options })
  open.push(l)
  return l
}

afterAll(async () => {
  await Promise.all(open.map((l) => l.close()))
  if (available) await dropPrefix(prefix)
})

describe.skipIf(!available)('RedisRateLimiter (shared buckets)', () => {
  it('shares one bucket between two instances', async () => {
    const a = limiter()
    const b = limiter()
    const allowed: boolean[] = []
    for (let i = 0; i < 3; i++) allowed.push((await a.take('shared', 5, MINUTE)).allowed)
    for (let i = 0; i < 2; i++) allowed.push((await b.take('shared', 5, MINUTE)).allowed)
    expect(allowed).toEqual([true, true, true, true, true])
    const refusedA = await a.take('shared', 5, MINUTE)
    const refusedB = await b.take('shared', 5, MINUTE)
    expect(refusedA.allowed).toBe(false)
    expect(refusedB.allowed).toBe(false)
    expect(refusedB.retryAfterSeconds).toBeGreaterThanOrEqual(1)
    expect(refusedB.remaining).toBe(0)
  })

  it('is atomic under concurrency: exactly `limit` of many parallel takes pass', async () => {
    const a = limiter()
    const b = limiter()
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).take('race', 20, MINUTE)))
    expect(results.filter((d) => d.allowed).length).toBe(20)
  })

  it('refills over time (injected clock) and never above the limit', async () => {
    let now = 5_000_000
    const a = limiter({ now: () => now })
    const b = limiter({ now: () => now })
    for (let i = 0; i < 3; i++) expect((await a.take('refill', 3, MINUTE)).allowed).toBe(true)
    expect((await b.take('refill', 3, MINUTE)).allowed).toBe(false)
    now += 20_000
    expect((await b.take('refill', 3, MINUTE)).allowed).toBe(true)
    expect((await a.take('refill', 3, MINUTE)).allowed).toBe(false)
    now += 10 * MINUTE
    const full = await a.take('refill', 3, MINUTE)
    expect(full.allowed).toBe(true)
    expect(full.remaining).toBe(2)
  })

  it("uses the Redis server's clock when none is injected", async () => {
    const a = limiter({ now: undefined })
    const b = limiter({ now: undefined })
    // Two per hour: nothing refills within the test.
    expect((await a.take('server-clock', 2, 60 * MINUTE)).allowed).toBe(true)
    expect((await b.take('server-clock', 2, 60 * MINUTE)).allowed).toBe(true)
    const refused = await a.take('server-clock', 2, 60 * MINUTE)
    expect(refused.allowed).toBe(false)
    expect(refused.retryAfterSeconds).toBeGreaterThan(1700)
  })

  it('sets an expiry on every bucket', async () => {
    await limiter().take('expiring', 10, MINUTE)
    const client = new Redis(testRedisUrl())
    try {
      const ttl = await client.pttl(`${prefix}expiring`)
      expect(ttl).toBeGreaterThan(0)
      expect(ttl).toBeLessThanOrEqual(MINUTE + 1000)
    } finally {
      client.disconnect()
    }
  })
})

describe('RedisRateLimiter when Redis fails', () => {
  it('fails open to per-instance buckets and logs a warning', async () => {
    const lines: string[] = []
    // Port 1: nothing listens there, so every Redis call fails.
    const broken = new RedisRateLimiter('redis://127.0.0.1:1', {
      prefix,
      now: () => frozen,
      log: createLogger('warn', (l) => lines.push(l)),
      commandTimeoutMs: 300,
    })
    open.push(broken)
    const first = await broken.take('down', 2, MINUTE)
    expect(first.allowed).toBe(true)
    expect((await broken.take('down', 2, MINUTE)).allowed).toBe(true)
    // Still limited, by the local fallback bucket.
    expect((await broken.take('down', 2, MINUTE)).allowed).toBe(false)
    expect(lines.some((l) => JSON.parse(l).level === 'warn' && JSON.parse(l).msg.includes('redis rate limiter'))).toBe(true)
  })
})
