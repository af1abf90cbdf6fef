import { sha256Hex } from '../../platform/crypto'
import type { Db } from '../../platform/db'
import { decision, type RateDecision, type RateLimiter } from '../../platform/ratelimit'
import * as repo from './repo'

export { deleteFullBuckets } from './repo'

/** Every this many takes, one of them also deletes the buckets that are full again. */
const PURGE_EVERY = 1000

/**
 * Token buckets in the database: shared by every instance, kept across restarts and Redis outages.
 * For limits whose loss hands out fresh guesses (per-account login and code attempts, 15-minute
 * windows); services.ts routes long windows here through TieredRateLimiter. Bucket keys are stored
 * as SHA-256 digests, so an e-mail address in a key never lands in the table. The app's clock is
 * used (tests move it), not the database's.
 */
export function databaseRateLimiter({ db, now }: { db: Db; now: () => Date }): RateLimiter {
  let takes = 0
  return {
    async take(key: string, limit: number, windowMs: number): Promise<RateDecision> {
      const at = now()
      const { allowed, tokens } = await repo.takeToken(db.sql, { key: sha256Hex(key), limit, windowMs, now: at })
      if (++takes % PURGE_EVERY === 0) await repo.deleteFullBuckets(db.sql, at)
      return decision(allowed, limit, Number(tokens), limit / windowMs)
    },
  }
}
