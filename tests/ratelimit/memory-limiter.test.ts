import { describe, expect, it } from 'bun:test'
import { MemoryRateLimiter } from '../../src/server/platform/ratelimit'

const MINUTE = 60_000

describe('MemoryRateLimiter', () => {
  it('lets a full bucket through `limit` times, then refuses with Retry-After', async () => {
    const now = 1_000_000
    const limiter = new MemoryRateLimiter(() => now)
    const remaining: number[] = []
    for (let i = 0; i < 3; i++) {
      const d = await limiter.take('k', 3, MINUTE)
      expect(d.allowed).toBe(true)
      expect(d.limit).toBe(3)
      remaining.push(d.remaining)
    }
    expect(remaining).toEqual([2, 1, 0])
    const refused = await limiter.take('k', 3, MINUTE)
    expect(refused.allowed).toBe(false)
    expect(refused.remaining).toBe(0)
    // 3 tokens per minute: one token every 20 s.
    expect(refused.retryAfterSeconds).toBe(20)
    expect(refused.resetSeconds).toBe(60)
  })

  it('refills evenly over the window', async () => {
    let now = 0
    const limiter = new MemoryRateLimiter(() => now)
    for (let i = 0; i < 3; i++) await limiter.take('k', 3, MINUTE)
    expect((await limiter.take('k', 3, MINUTE)).allowed).toBe(false)
    now += 19_999
    expect((await limiter.take('k', 3, MINUTE)).allowed).toBe(false)
    now += 1
    const one = await limiter.take('k', 3, MINUTE)
    expect(one.allowed).toBe(true)
    expect((await limiter.take('k', 3, MINUTE)).allowed).toBe(false)
    now += 10 * MINUTE
    // Never more than `limit` tokens, however long the bucket rested.
    const after = await limiter.take('k', 3, MINUTE)
    expect(after.allowed).toBe(true)
    expect(after.remaining).toBe(2)
  })

  it('keeps buckets apart by key', async () => {
    const now = 0
    const limiter = new MemoryRateLimiter(() => now)
    expect((await limiter.take('a', 1, MINUTE)).allowed).toBe(true)
    expect((await limiter.take('a', 1, MINUTE)).allowed).toBe(false)
    expect((await limiter.take('b', 1, MINUTE)).allowed).toBe(true)
  })
})

// Issue 15, finding 1: the sweep used the *current request's* window for every bucket, so 10,000
// one-minute requests emptied the map of 15-minute login buckets and gave an account fresh guesses.
describe('MemoryRateLimiter sweep (issue 15)', () => {
  const LOGIN_WINDOW = 15 * MINUTE

  it('10,000 requests of another scope do not reset an exhausted 15-minute bucket', async () => {
    let now = 0
    const limiter = new MemoryRateLimiter(() => now)
    for (let i = 0; i < 10; i++) expect((await limiter.take('auth:login:account:v@x.test', 10, LOGIN_WINDOW)).allowed).toBe(true)
    expect((await limiter.take('auth:login:account:v@x.test', 10, LOGIN_WINDOW)).allowed).toBe(false)
    // Idle longer than the other scope's window, less than one login token's refill (90 s).
    now += 61_000
    for (let i = 0; i < 10_000; i++) await limiter.take(`ip:live-score:10.0.${i >> 8}.${i & 255}`, 60, MINUTE)
    const after = await limiter.take('auth:login:account:v@x.test', 10, LOGIN_WINDOW)
    expect(after.allowed).toBe(false)
    expect(after.retryAfterSeconds).toBeGreaterThan(0)
  })

  it('still drops buckets that are full again, so memory stays bounded', async () => {
    let now = 0
    const limiter = new MemoryRateLimiter(() => now)
    for (let i = 0; i < 9_999; i++) await limiter.take(`ip:a:${i}`, 60, MINUTE)
    expect(limiter.size).toBe(9_999)
    now += MINUTE
    // The 10,000th take sweeps: every one-minute bucket above has refilled its one token.
    await limiter.take('ip:a:last', 60, MINUTE)
    expect(limiter.size).toBe(1)
  })
})
