import type { Logger } from '../platform/log'

/**
 * Runs a housekeeping job `firstAfterMs` after start (a minute by default) and then every `everyMs`,
 * never in tests (they call the job directly). A run still going when the next is due is not doubled.
 * Failures are logged, not thrown. Returns the stop function.
 */
export function startPeriodic(
  deps: { log: Logger; config: { env: string } },
  name: string,
  everyMs: number,
  job: () => Promise<Record<string, unknown> | null>,
  firstAfterMs = 60_000
): () => void {
  if (deps.config.env === 'test') return () => {}
  let running = false
  const run = () => {
    if (running) return
    running = true
    job()
      .then((done) => done && deps.log.info(name, done))
      .catch((error: unknown) => deps.log.warn(`${name} failed`, { error: String((error as Error)?.message ?? error) }))
      .finally(() => {
        running = false
      })
  }
  const first = setTimeout(run, firstAfterMs)
  const every = setInterval(run, everyMs)
  first.unref()
  every.unref()
  return () => {
    clearTimeout(first)
    clearInterval(every)
  }
}
