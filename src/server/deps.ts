import type { Config } from './platform/config'
import type { Db } from './platform/db'
import type { AccessTokens } from './platform/access-token'
import type { Clock } from './platform/clock'
import type { Logger } from './platform/log'
import type { Mailer } from './platform/mailer'
import type { RateLimiter } from './platform/ratelimit'

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
