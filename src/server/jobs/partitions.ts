import type { Clock } from '../platform/clock'
import type { Config } from '../platform/config'
import type { Db } from '../platform/db'
import type { Logger } from '../platform/log'
import { createPartitionsAhead } from '../modules/ingest'
import { startPeriodic } from './periodic'

const EVERY_MS = 3600_000
/** Days of session_batches partitions kept ready beyond today. */
export const PARTITION_DAYS_AHEAD = 3

/**
 * Creates the session_batches partitions of today and the next days at start and then hourly, so
 * ingest finds its partition ready (it creates a missing one itself, but DDL on the request path
 * briefly locks the table). Returns the stop function.
 */
export function startPartitions({ db, clock, config, log }: { db: Db; clock: Clock; config: Pick<Config, 'env'>; log: Logger }) {
  return startPeriodic(
    { log, config },
    'batch partitions',
    EVERY_MS,
    async () => {
      await createPartitionsAhead(db, clock.now(), PARTITION_DAYS_AHEAD)
      return null
    },
    0
  )
}
