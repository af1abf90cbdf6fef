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

/**
 * Sessions this process has written a batch to (bounded: the oldest are forgotten first). Only a
 * new session's first batch needs the batch's own trajectory fingerprint (it is stored only when the
 * session row is created), so a batch of a session known here skips computing it: ≈ 6 % of the
 * service's CPU under the side-by-side load, two thirds of it for sessions that already existed.
 * A session is never deleted after it was accepted (only refused new sessions are, in the transaction
 * that created them, and those are never added), so "known" means "exists".
 */
export class KnownSessions {
  private readonly keys = new Set<string>()

  constructor(private readonly max = 100_000) {}

  has(key: string): boolean {
    return this.keys.has(key)
  }

  add(key: string): void {
    if (this.keys.has(key)) return
    if (this.keys.size >= this.max) this.keys.delete(this.keys.values().next().value!)
    this.keys.add(key)
  }
}

/**
 * At most one scoring run per session in this process, and at most one more waiting: a request that
 * needs the score after its own write joins the *waiting* run (which starts after the running one ends,
 * so it reads every batch committed before it), never the running one (whose read may predate the
 * write). A burst of secret-key batches to one session costs two scoring runs, not one per batch.
 */
export class ScoringRuns<T> {
  private readonly sessions = new Map<string, { running: Promise<T>; next?: Promise<T> }>()

  run(key: string, fn: () => Promise<T>): Promise<T> {
    const entry = this.sessions.get(key)
    if (!entry) {
      const running = this.track(key, fn())
      this.sessions.set(key, { running })
      return running
    }
    if (!entry.next) {
      const after = entry.running.then(
        () => undefined,
        () => undefined
      )
      entry.next = after.then(() => {
        const running = this.track(key, fn())
        this.sessions.set(key, { running })
        return running
      })
    }
    return entry.next
  }

  private track(key: string, run: Promise<T>): Promise<T> {
    const done = () => {
      const entry = this.sessions.get(key)
      if (entry && entry.running === run && !entry.next) this.sessions.delete(key)
    }
    run.then(done, done)
    return run
  }
}

/**
 * Group commit: jobs that arrive while their key already has `maxPerKey` groups being written (or
 * while `maxInFlight` groups are, in all) wait and go together into a later group of their key (one
 * transaction, one commit, one WAL flush), at most `maxGroup` at a time. A group holds jobs of one key
 * only (the organization: a transaction is scoped to one tenant), taken in arrival order from the
 * oldest waiting job whose key has a slot free, so no key waits behind a busier one. A job arriving
 * when a slot is free is written at once, so a quiet instance adds no latency; under load, groups grow
 * by themselves. `flush` settles every job of its group.
 *
 * Why a limit per key: one organization's groups with new sessions queue on its month's counter row
 * anyway (each holds it until its commit), and every group costs a statement, a commit and a claim.
 * Measured with one busy organization (bench/load-profile.ts, wrk -c50): 8 groups of it in flight gave
 * 3.1 batches per group and 1,860 req/s; 3 gave 7.2 and 1,926; 2 gave 10 and 1,980–2,080; 1 gave 24
 * and 2,384, with the least CPU per batch (service 0.35 ms, PostgreSQL 0.22 ms, against 0.38 and 0.36
 * with 8). In the open loop at half of the peak, p99 was 13–15 ms with 1 and 17 ms with 2: a batch
 * waits at most for its organization's group in flight (one statement and its commit). Other
 * organizations still get the other slots.
 */
export class GroupCommit<J> {
  private pending: J[] = []
  private inFlight = 0
  private readonly perKey = new Map<string, number>()

  constructor(
    private readonly keyOf: (job: J) => string,
    private readonly flush: (jobs: J[]) => Promise<void>,
    private readonly maxInFlight = 8,
    private readonly maxGroup = 64,
    private readonly maxPerKey = 1
  ) {}

  add(job: J): void {
    this.pending.push(job)
    this.next()
  }

  private next(): void {
    while (this.inFlight < this.maxInFlight && this.pending.length) {
      const first = this.pending.find((job) => (this.perKey.get(this.keyOf(job)) ?? 0) < this.maxPerKey)
      if (!first) return
      const key = this.keyOf(first)
      const group: J[] = []
      const rest: J[] = []
      for (const job of this.pending) (group.length < this.maxGroup && this.keyOf(job) === key ? group : rest).push(job)
      this.pending = rest
      this.inFlight++
      this.perKey.set(key, (this.perKey.get(key) ?? 0) + 1)
      const done = () => {
        this.inFlight--
        const left = this.perKey.get(key)! - 1
        if (left) this.perKey.set(key, left)
        else this.perKey.delete(key)
        this.next()
      }
      this.flush(group).then(done, done)
    }
  }
}
