import type { Clock } from '../platform/clock'
import type { Config } from '../platform/config'
import type { Db } from '../platform/db'
import type { Logger } from '../platform/log'
import { scoreQuietSessions } from '../modules/ingest'
import { startPeriodic } from './periodic'

export const SCORER_EVERY_MS = 10_000
/** Sessions per tick: bounds one tick's work (each scoring reads its session's signals). */
export const SCORER_BATCH = 200

/**
 * Scores sessions quiet for 30 s whose score is stale or missing, every 10 s (issue 17: the dashboard
 * lists verdicts of SDK sessions that no secret key ever asked for). Returns the stop function.
 */
export function startBackgroundScorer({ db, clock, config, log }: { db: Db; clock: Clock; config: Pick<Config, 'env'>; log: Logger }) {
  return startPeriodic(
    { log, config },
    'background scorer',
    SCORER_EVERY_MS,
    async () => {
      const { scored, failed, errors } = await scoreQuietSessions(db, clock.now(), SCORER_BATCH)
      return scored + failed > 0 ? { scored, failed, ...(failed ? { first_error: errors[0] } : {}) } : null
    },
    SCORER_EVERY_MS
  )
}
