import Redis from 'ioredis'
import { createLogger, type Logger } from './log'
import { decision, MemoryRateLimiter, type RateDecision, type RateLimiter } from './ratelimit'

/**
 * One token bucket per key, as a hash {t: tokens, u: updated ms}. Refill, take and expiry happen in
 * one script so concurrent instances never read-modify-write the same bucket in between.
 * ARGV: limit, windowMs, now (ms; empty → the Redis server's clock, so instances with skewed
 * clocks still agree). Returns {allowed, tokens as a string} (Lua numbers would be truncated).
 */
const TAKE_LUA = `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local rate = limit / window
local b = redis.call('HMGET', KEYS[1], 't', 'u')
local tokens = tonumber(b[1])
local updated = tonumber(b[2])
if tokens == nil or updated == nil then
  tokens = limit
  updated = now
end
local elapsed = now - updated
if elapsed < 0 then elapsed = 0 end
tokens = math.min(limit, tokens + elapsed * rate)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'u', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((limit - tokens) / rate) + 1000)
return { allowed, tostring(tokens) }
`

export type RedisRateLimiterOptions = {
  /** Prefix of every bucket key (tests use a unique one per run). */
  prefix?: string
  log?: Logger
  /** Milliseconds a take may wait for Redis before the local fallback answers. */
  commandTimeoutMs?: number
  /** After a Redis failure, how long takes go straight to the local fallback before Redis is tried again. */
  cooldownMs?: number
  /** Tests only: a clock for the bucket arithmetic; by default the Redis server's clock is used. */
  now?: () => number
}

type TakeCommand = (key: string, limit: number, windowMs: number, now: string) => Promise<[number, string]>

/**
 * Token buckets shared by every instance through Redis.
 *
 * If Redis fails at runtime the limiter fails open *to a local in-memory bucket* rather than refusing
 * traffic: rate limiting protects the service, so a Redis outage must not become an API outage. While
 * degraded each instance enforces the limit on its own (N instances allow up to N× the limit).
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis
  private readonly prefix: string
  private readonly log: Logger
  private readonly cooldownMs: number
  private readonly now?: () => number
  private readonly fallback: MemoryRateLimiter
  private degradedUntil = 0
  private lastWarning = 0

  constructor(url: string, options: RedisRateLimiterOptions = {}) {
    this.prefix = options.prefix ?? 'bss:rl:'
    this.log = options.log ?? createLogger('warn')
    this.cooldownMs = options.cooldownMs ?? 5000
    this.now = options.now
    this.fallback = new MemoryRateLimiter(options.now)
    this.redis = new Redis(url, {
      commandTimeout: options.commandTimeoutMs ?? 500,
      maxRetriesPerRequest: 1,
      // A brief offline queue lets the first requests after start-up wait for the connection.
      enableOfflineQueue: true,
    })
    this.redis.defineCommand('bssTakeToken', { numberOfKeys: 1, lua: TAKE_LUA })
    this.redis.on('error', (error: Error) => this.warn('redis rate limiter connection error', error))
  }

  async take(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    if (Date.now() < this.degradedUntil) return this.fallback.take(key, limit, windowMs)
    try {
      const take = (this.redis as unknown as { bssTakeToken: TakeCommand }).bssTakeToken.bind(this.redis)
      const [allowed, tokens] = await take(this.prefix + key, limit, windowMs, this.now ? String(this.now()) : '')
      return decision(allowed === 1, limit, Number(tokens), limit / windowMs)
    } catch (error) {
      this.degradedUntil = Date.now() + this.cooldownMs
      this.warn('redis rate limiter failed, using per-instance buckets', error)
      return this.fallback.take(key, limit, windowMs)
    }
  }

  async close(): Promise<void> {
    try {
      await this.redis.quit()
    } catch {
      this.redis.disconnect()
    }
  }

  // One warning per cooldown period: an outage must not flood the log at request rate.
  private warn(msg: string, error: unknown) {
    const now = Date.now()
    if (now - this.lastWarning < this.cooldownMs) return
    this.lastWarning = now
    this.log.warn(msg, { error: String((error as Error)?.message ?? error) })
  }
}
