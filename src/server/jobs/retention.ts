import type { Clock } from '../platform/clock'
import type { Config } from '../platform/config'
import type { Db } from '../platform/db'
import type { Logger } from '../platform/log'
import { purgeOldSignals } from '../modules/ingest'
import { startPeriodic } from './periodic'

const PURGE_EVERY_MS = 3600_000

/** Drops the day partitions of raw signals older than RETENTION_DAYS every hour (and once a minute after start); returns the stop function. */
export function startRetention({
  db,
  clock,
  config,
  log,
}: {
  db: Db
  clock: Clock
  config: Pick<Config, 'env' | 'retentionDays'>
  log: Logger
}) {
  return startPeriodic({ log, config }, 'retention purge', PURGE_EVERY_MS, async () => {
    const dropped = await purgeOldSignals(db, clock.now(), config.retentionDays)
    return dropped.length > 0 ? { partitions_dropped: dropped, retention_days: config.retentionDays } : null
  })
}
