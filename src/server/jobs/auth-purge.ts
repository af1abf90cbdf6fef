import type { Clock } from '../platform/clock'
import type { Config } from '../platform/config'
import type { Db } from '../platform/db'
import type { Logger } from '../platform/log'
import { purgeExpiredAuth } from '../modules/auth'
import { startPeriodic } from './periodic'

export const AUTH_PURGE_EVERY_MS = 60 * 60 * 1000

/** Deletes expired one-time codes and refresh tokens every hour; returns the stop function. */
export function startAuthPurge({ db, clock, config, log }: { db: Db; clock: Clock; config: Pick<Config, 'env'>; log: Logger }) {
  return startPeriodic({ log, config }, 'auth purge', AUTH_PURGE_EVERY_MS, async () => {
    const purged = await purgeExpiredAuth(db, clock.now())
    return purged.challenges + purged.refresh_tokens > 0 ? purged : null
  })
}
