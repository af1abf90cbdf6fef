/**
 * Token buckets. In memory per instance by default; RedisRateLimiter (src/server/platform/ratelimit-redis.ts)
 * shares buckets between instances. Both implement the same interface.
 */
export type RateDecision = {
  allowed: boolean
  limit: number
  remaining: number
  /** seconds until the bucket is full again */
  resetSeconds: number
  /** seconds to wait before the next request can pass (0 when allowed) */
  retryAfterSeconds: number
  /** seconds until the bucket holds one more whole token */
  nextTokenSeconds: number
  /** the window `limit` refills over, for RateLimit-Policy */
  windowSeconds: number
}

export interface RateLimiter {
  /** Takes one token from bucket `key` holding `limit` tokens that refill evenly over `windowMs`. */
  take(key: string, limit: number, windowMs: number): Promise<RateDecision>
  close?(): Promise<void>
}

/** `full`: when the bucket will hold `limit` tokens again (ms); until then it must be kept. */
type Bucket = { tokens: number; updated: number; full: number }

/** Every this many takes, buckets that are full again are dropped (memory stays bounded under key churn). */
const SWEEP_EVERY = 10_000

export class MemoryRateLimiter implements RateLimiter {
  private buckets = new Map<string, Bucket>()
  private takes = 0

  constructor(private now: () => number = () => Date.now()) {}

  async take(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    const now = this.now()
    const rate = limit / windowMs
    const bucket = this.buckets.get(key) ?? { tokens: limit, updated: now, full: now }
    bucket.tokens = Math.min(limit, bucket.tokens + (now - bucket.updated) * rate)
    bucket.updated = now
    const allowed = bucket.tokens >= 1
    if (allowed) bucket.tokens -= 1
    // Each bucket expires by its own window: a sweep triggered by a 1-minute bucket must not drop a
    // 15-minute login bucket that is still empty (that handed out fresh password guesses on demand).
    bucket.full = now + (limit - bucket.tokens) / rate
    this.buckets.set(key, bucket)
    if (++this.takes % SWEEP_EVERY === 0) this.sweep(now)
    return decision(allowed, limit, bucket.tokens, rate)
  }

  /** Buckets held, for tests of the sweep. */
  get size(): number {
    return this.buckets.size
  }

  // A full bucket carries no information: dropping it changes no decision.
  private sweep(now: number) {
    for (const [key, b] of this.buckets) if (b.full <= now) this.buckets.delete(key)
  }
}

/** Windows at least this long go to the durable limiter of a TieredRateLimiter. */
export const DURABLE_WINDOW_MS = 5 * 60 * 1000

/**
 * Routes each take by its window: short buckets (per-minute request limits) to `fast` (memory or
 * Redis: no database round trip, and losing one forgets at most a minute); buckets of
 * DURABLE_WINDOW_MS or longer (per-account login and code limits, 15 minutes) to `durable` (the
 * database), where neither a Redis outage nor a restart can reset them (issue 15, item 8).
 */
export class TieredRateLimiter implements RateLimiter {
  constructor(
    private readonly fast: RateLimiter,
    private readonly durable: RateLimiter
  ) {}

  take(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    return (windowMs >= DURABLE_WINDOW_MS ? this.durable : this.fast).take(key, limit, windowMs)
  }

  async close(): Promise<void> {
    await this.fast.close?.()
    await this.durable.close?.()
  }
}

export function decision(allowed: boolean, limit: number, tokens: number, ratePerMs: number): RateDecision {
  const whole = Math.floor(tokens)
  return {
    nextTokenSeconds: whole >= limit ? 0 : Math.max(1, Math.ceil((whole + 1 - tokens) / ratePerMs / 1000)),
    windowSeconds: Math.round(limit / ratePerMs / 1000),
    allowed,
    limit,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.ceil((limit - tokens) / ratePerMs / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / ratePerMs / 1000)),
  }
}

import { ApiError } from './errors'

/**
 * IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers-07) for any decision, allowed or not.
 * With tokens left, Reset is when the bucket is full again; with none left, when the next request
 * may pass, so on a 429 it equals Retry-After (a token bucket refills evenly, it has no window end).
 */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    'ratelimit-policy': `${d.limit};w=${d.windowSeconds}`,
    'ratelimit-limit': String(d.limit),
    'ratelimit-remaining': String(d.remaining),
    'ratelimit-reset': String(d.remaining > 0 ? d.resetSeconds : Math.max(d.retryAfterSeconds, d.nextTokenSeconds)),
  }
}

/** The contract's 429 rate_limited, with Retry-After. */
export function rateLimitedError(d: RateDecision): ApiError {
  return new ApiError('rate_limited', 'too many requests, retry later', undefined, {
    ...rateLimitHeaders(d),
    'retry-after': String(d.retryAfterSeconds),
  })
}
