import type { Config } from './config'
import type { Db } from './db'
import type { AccessTokens } from './lib/access-token'
import type { Clock } from './lib/clock'
import type { Logger } from './lib/log'
import type { Mailer } from './lib/mailer'
import type { RateLimiter } from './lib/ratelimit'

/** Everything a module may need, built once in main.ts (or the test harness) and passed down. */
export type AppDeps = {
  config: Config
  db: Db
  log: Logger
  clock: Clock
  mailer: Mailer
  limiter: RateLimiter
  tokens: AccessTokens
}
