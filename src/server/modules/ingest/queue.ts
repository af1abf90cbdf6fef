import { ApiError } from '../../platform/errors'

/**
 * Runs the writes of one session one at a time, in arrival order, inside this process.
 *
 * Why not the row lock alone: a batch waiting on a session's row lock holds a pool connection for the
 * whole wait, so 40 concurrent batches to one session used to take every connection and starve every
 * other tenant. Here a waiting batch holds only its promise; at most one batch per session and process
 * is in the database, where the row lock still orders batches across instances (each instance adds at
 * most one short wait: the locked section reads no earlier signals and scores nothing).
 * Why not `pg_try_advisory_xact_lock` with retries: polling adds round trips and latency, is unfair
 * under contention, and still needs a connection per attempt.
 */
export class SessionQueue {
  private readonly sessions = new Map<string, { tail: Promise<void>; waiting: number }>()

  /** `maxWaiting`: batches of one session queued in this process before more are refused (503). */
  constructor(private readonly maxWaiting = 256) {}

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let entry = this.sessions.get(key)
    if (entry && entry.waiting >= this.maxWaiting) {
      return Promise.reject(
        new ApiError('unavailable', 'too many batches of this session are being stored at once; retry shortly', undefined, {
          'retry-after': '1',
        })
      )
    }
    if (!entry) {
      entry = { tail: Promise.resolve(), waiting: 0 }
      this.sessions.set(key, entry)
    }
    const own = entry
    own.waiting++
    const result = own.tail.then(fn)
    own.tail = result.then(
      () => this.release(key, own),
      () => this.release(key, own)
    )
    return result
  }

  /** Sessions with work queued or running (for tests). */
  get size(): number {
    return this.sessions.size
  }

  private release(key: string, entry: { waiting: number }): void {
    entry.waiting--
    if (entry.waiting === 0 && this.sessions.get(key) === entry) this.sessions.delete(key)
  }
}
