import Redis from 'ioredis'

export const testRedisUrl = () => process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

/** A key prefix no other run (or test file) shares, so parallel runs never see each other's buckets. */
export const uniquePrefix = (label: string) => `bss:test:${label}:${Date.now().toString(36)}:${Math.random().toString(36).slice(2, 8)}:`

/** true when Redis answers; otherwise warns loudly so a skipped suite is never mistaken for a passing one. */
export async function redisAvailable(suite: string): Promise<boolean> {
  const client = new Redis(testRedisUrl(), { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1500 })
  client.on('error', () => {})
  try {
    await client.connect()
    return (await client.ping()) === 'PONG'
  } catch {
    console.warn(`\n!!! ${suite}: Redis is not reachable at ${testRedisUrl()} — SKIPPING the Redis tests (CI always has Redis) !!!\n`)
    return false
  } finally {
    client.disconnect()
  }
}

/** Deletes every key under a prefix (test clean-up). */
export async function dropPrefix(prefix: string): Promise<void> {
  const client = new Redis(testRedisUrl(), { maxRetriesPerRequest: 0 })
  client.on('error', () => {})
  try {
    const keys = await client.keys(`${prefix}*`)
    if (keys.length) await client.del(...keys)
  } finally {
    client.disconnect()
  }
}
