import type { Logger } from '../platform/log'

/**
 * Runs a housekeeping job a minute after start and then every `everyMs`, never in tests (they call
 * the job directly). Failures are logged, not thrown. Returns the stop function.
 */
export function startPeriodic(
  deps: { log: Logger; config: { env: string } },
  name: string,
  everyMs: number,
  job: () => Promise<Record<string, unknown> | null>
): () => void {
  if (deps.config.env === 'test') return () => {}
  const run = () =>
    job()
      .then((done) => done && deps.log.info(name, done))
      .catch((error: unknown) => deps.log.warn(`${name} failed`, { error: String((error as Error)?.message ?? error) }))
  const first = setTimeout(run, 60_000)
  const every = setInterval(run, everyMs)
  first.unref()
  every.unref()
  return () => {
    clearTimeout(first)
    clearInterval(every)
  }
}
