import { createHash } from 'node:crypto'
import type { Signal } from '../../../scoring/signals'
import { monthStartUtc } from '../../platform/clock'
import type { Db } from '../../platform/db'
import { ApiError, isDatabaseUnavailable } from '../../platform/errors'
import { getThresholds } from '../thresholds'
import { monthQuota, type Quota, quotaExceeded, quotaHeaders } from '../usage'
import type { IngestBody } from './model'
import { CODEC_VERSION, deflateColumns, encodeColumns } from './codec'
import * as repo from './repo'
import type { GroupCommit, KnownSessions, ScoringRuns, SessionQueue } from './queue'
import { findReuse, sessionMaterial, storeMaterial } from './replay-store'
import { fingerprint, score } from './scoring'

/** A session takes batches for this long after its first one. */
export const SESSION_WINDOW_MS = 30 * 60_000
/** …and at most this many signals (API.md): the bound on the cost of computing its score. */
export const MAX_SESSION_SIGNALS = 50_000

export type SessionResult = {
  session_id: string
  hcs: number
  m3_score: number
  verdict: string
  reasons: string[]
  signals: number
  batches: number
  model_version: string
  first_seen_at: string
  scored_at: string
  /** the customer's label (issue 18), else null */
  label: 'human' | 'bot' | null
}

export type { Quota } from '../usage'
/** `result` only when asked for (secret keys). */
export type IngestOutcome = { result?: SessionResult; accepted: number; quota: Quota }

/** The answer for a stored row; `covered` is what its score covers when the row's counters ran ahead of it. */
function toResult(row: repo.SessionRow, covered?: { batches: number; signals: number }): SessionResult {
  return {
    session_id: row.session_id,
    hcs: Number(row.hcs),
    m3_score: Number(row.m3_score),
    verdict: row.verdict!,
    reasons: row.reasons,
    signals: covered?.signals ?? row.signal_count,
    batches: covered?.batches ?? row.batch_count,
    model_version: row.model_version!,
    first_seen_at: row.first_seen_at.toISOString(),
    scored_at: row.scored_at!.toISOString(),
    label: row.label ?? null,
  }
}

/**
 * The stored result of one session of one organization, or null (absent, or another organization's).
 * Read inside db.tenant, so row-level security is a second wall behind the org_id in the query.
 */
export function getSessionResult(db: Db, orgId: string, sessionId: string, now = new Date()): Promise<SessionResult | null> {
  return currentResult(db, orgId, sessionId, now)
}

type IngestInput = { orgId: string; keyPairId?: string; now: Date; body: IngestBody }

/** What is computed from the request alone, before any query: O(batch), never O(session). */
type Batch = { signals: Signal[]; packed: Uint8Array; hash: string; month: string; firstPrint: string | null }

/**
 * SHA-256 of a batch's captured_at and its events in some exact form: both key forms are made so.
 * node:crypto, not the pure-JS sha256 of platform/crypto: this runs on every request.
 */
const batchDigest = (capturedAt: Date, events: string | Uint8Array) =>
  createHash('sha256').update(capturedAt.toISOString()).update('\n').update(events).digest('hex')

/** `mayBeNew`: false when this process knows the session exists, so its batch's own fingerprint is never stored. */
function prepareBatch({ body, now }: IngestInput, mayBeNew: boolean): Batch {
  const signals = body.signals as Signal[]
  const columns = encodeColumns(signals)
  return {
    signals,
    packed: deflateColumns(columns),
    // The retry key (sql/0016): the events' columns identify them as their JSON did, without making it.
    hash: `p${CODEC_VERSION}:${batchDigest(body.captured_at, columns)}`,
    month: hourOf(now).month,
    // The batch's own fingerprint: a new session's, until its first score replaces it with the whole session's.
    firstPrint: mayBeNew ? fingerprint(signals) : null,
  }
}

/**
 * The retry key as it was before sql/0016: over captured_at and the events' JSON. Made only for a batch
 * of a session that holds batches keyed so (stored before 0016, or by an instance running older code).
 */
const legacyBatchHash = (body: IngestBody) => batchDigest(body.captured_at, JSON.stringify(body.signals))

/** 409 for a batch of a session past its 30 minutes. */
const closedSession = (quota: Quota) =>
  new ApiError(
    'conflict',
    'this session is closed: it takes batches for 30 minutes after its first one; start a new session',
    undefined,
    quotaHeaders(quota)
  )

/** 409 for a batch that would take its session past 50,000 signals. */
const fullSession = (quota: Quota, has: number, adding: number) =>
  new ApiError(
    'conflict',
    `this session is full: it holds at most ${MAX_SESSION_SIGNALS.toLocaleString('en-US')} signals (it has ${has}, this batch has ${adding}); start a new session`,
    undefined,
    quotaHeaders(quota)
  )

type Written = { accepted: number; quota: Quota }

/** One batch waiting for its group's transaction. */
export type WriteJob = { input: IngestInput; batch: Batch; resolve: (w: Written) => void; reject: (e: unknown) => void }

/** A batch's answer: written (or recognised as a retry), or refused (ApiError), or failed (a legacy batch's second write). */
type Outcome = Written | Error

const settle = (jobs: WriteJob[], outcomes: Outcome[]) =>
  jobs.forEach((job, i) => {
    const outcome = outcomes[i]!
    if (outcome instanceof Error) job.reject(outcome)
    else job.resolve(outcome)
  })

const writeAlone = (db: Db, job: WriteJob) => groupWrite(db, [job]).then((outcomes) => settle([job], outcomes), job.reject)

/**
 * Group commit: writes the batches of `jobs` (different sessions of one organization) in one
 * transaction with one commit, and settles each job after the commit (a batch is acknowledged only
 * once durable). A lone batch is a group of one. One `db.tenant` transaction, so row-level security
 * applies. Batches of another UTC month than the first go in a transaction of their own (the quota
 * is per month). A database error aborts the group; then each batch is written again alone, so one
 * bad batch fails alone.
 */
export async function writeGroup(db: Db, jobs: WriteJob[]): Promise<void> {
  const orgId = jobs[0]!.input.orgId
  if (jobs.some((job) => job.input.orgId !== orgId)) {
    for (const job of jobs) job.reject(new Error('a write group spans organizations'))
    return
  }
  const month = jobs[0]!.batch.month
  const other = jobs.filter((job) => job.batch.month !== month)
  if (other.length) {
    await Promise.all([
      writeGroup(
        db,
        jobs.filter((job) => job.batch.month === month)
      ),
      writeGroup(db, other),
    ])
    return
  }
  if (jobs.length === 1) return writeAlone(db, jobs[0]!)
  let outcomes: Outcome[]
  try {
    outcomes = await groupWrite(db, jobs)
  } catch (error) {
    if (isDatabaseUnavailable(error)) {
      for (const job of jobs) job.reject(error)
      return
    }
    await Promise.all(jobs.map((job) => writeAlone(db, job)))
    return
  }
  settle(jobs, outcomes)
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The write of a group of batches (distinct sessions, one organization, one month), each judged
 * exactly as a lone batch, in one statement and one round trip whatever the group's size
 * (`ingest_write_group`, sql/0014): create or lock every session (in session order), the retry probe,
 * each batch's checks (retry, quota fast refusal, window, 50,000 signals), store the admitted batches
 * and move their sessions' counters on, count the new sessions against the month's quota (last: the
 * counter row is locked only until the commit right after) and drop those past the limit. The
 * statement commits on its own before its answer arrives, so every batch answered here is durable.
 * (A batch of a session holding batches keyed the way before sql/0016 takes a second statement.)
 *
 * Reads no earlier signal and scores nothing, so its cost does not depend on the sessions' length.
 */
async function groupWrite(db: Db, unsorted: WriteJob[]): Promise<Outcome[]> {
  const jobs = [...unsorted].sort((a, b) => cmp(a.input.body.session_id, b.input.body.session_id))
  const { orgId, now } = jobs[0]!.input
  const group = { month: jobs[0]!.batch.month, windowMs: SESSION_WINDOW_MS, maxSignals: MAX_SESSION_SIGNALS }
  const rowOf = ({ input, batch }: WriteJob, legacyHash: string | null): repo.GroupRow => ({
    sessionId: input.body.session_id,
    keyPairId: input.keyPairId ?? null,
    sdkType: input.body.sdk_type,
    at: input.now,
    firstPrint: batch.firstPrint,
    hash: batch.hash,
    legacyHash,
    capturedAt: input.body.captured_at,
    signalCount: batch.signals.length,
    packed: batch.packed,
    features: input.body.features,
  })
  const decided: (repo.GroupOutcome | Error)[] = await repo.writeBatches(
    db.sql,
    orgId,
    group,
    jobs.map((job) => rowOf(job, null))
  )
  // Sessions holding batches keyed the old way (sql/0016) wrote nothing for these batches: written again,
  // in one more statement, with the old key too, so a retry of such a batch is still recognised. The first
  // statement has committed, so a failure here is these batches' alone.
  const legacy = jobs.flatMap((_job, i) => ((decided[i] as repo.GroupOutcome).outcome === 'legacy' ? [i] : []))
  if (legacy.length) {
    const again = await repo
      .writeBatches(
        db.sql,
        orgId,
        group,
        legacy.map((i) => rowOf(jobs[i]!, legacyBatchHash(jobs[i]!.input.body)))
      )
      .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))
    legacy.forEach((i, k) => {
      decided[i] = again instanceof Error ? again : again[k]!
    })
  }
  const outcomes = new Map<WriteJob, Outcome>()
  jobs.forEach((job, i) => {
    const d = decided[i]!
    if (d instanceof Error) {
      outcomes.set(job, d)
      return
    }
    const quota = monthQuota(d.quota_limit, d.quota_used, now)
    switch (d.outcome) {
      case 'stored':
      case 'counted':
      case 'retry':
        // A retried batch (same hash) answers as the original did and changes nothing, also after the window closed.
        outcomes.set(job, { accepted: d.accepted, quota })
        break
      case 'closed':
        outcomes.set(job, closedSession(quota))
        break
      case 'full':
        outcomes.set(job, fullSession(quota, d.session_signals ?? 0, job.batch.signals.length))
        break
      case 'quota':
        outcomes.set(job, quotaExceeded(quota))
        break
      case 'legacy':
        // given the old key, the statement never asks for it again
        outcomes.set(job, new Error('ingest_write_group asked for the legacy hash of a batch that had it'))
        break
      default:
        outcomes.set(job, new ApiError('unauthorized', 'the organization no longer exists'))
    }
  })
  return unsorted.map((job) => outcomes.get(job)!)
}

/**
 * Appends one batch to its session. Creating a session and counting it toward the month
 * (usage_claim_sessions, inside ingest_write_group, sql/0014) happen in one transaction, so any number of instances never exceed the plan.
 * Batches of one session are written one at a time through `lanes.queue` (no connection is held while
 * waiting), and batches of different sessions share transactions through `lanes.writer` (group
 * commit) when given. The session's score is computed only when `withResult` (a secret key: its
 * answer carries the result), after the write has committed and outside the session's turn.
 */
export async function ingestBatch(
  db: Db,
  lanes: { queue: SessionQueue; writer?: GroupCommit<WriteJob>; scoring?: ScoringRuns<SessionResult | null>; known?: KnownSessions },
  input: IngestInput,
  withResult: boolean
): Promise<IngestOutcome> {
  const key = `${input.orgId}/${input.body.session_id}`
  const batch = prepareBatch(input, !lanes.known?.has(key))
  await ensurePartitions(db, hourOf(input.now).days)
  const { writer } = lanes
  const written = await lanes.queue.run(key, () =>
    writer
      ? new Promise<Written>((resolve, reject) => writer.add({ input, batch, resolve, reject }))
      : new Promise<Written>((resolve, reject) => writeAlone(db, { input, batch, resolve, reject }))
  )
  lanes.known?.add(key)
  if (!withResult) return written
  const result = await currentResult(db, input.orgId, input.body.session_id, input.now, lanes.scoring)
  if (!result) throw new Error('a session vanished right after its batch was stored')
  return { ...written, result }
}

const isFresh = (row: repo.SessionRow) => row.scored_batches === row.batch_count && row.scored_at !== null

/**
 * The session's result over all of its stored batches: the stored one when it covers every batch,
 * otherwise computed now and stored (so the next read is a plain read). null: no such session.
 *
 * Computing reads the session's signals in one transaction, checks the trajectory fingerprint for
 * replay in a second, and stores in a third; no connection is held while the model runs.
 */
export function currentResult(
  db: Db,
  orgId: string,
  sessionId: string,
  now: Date,
  scoring?: ScoringRuns<SessionResult | null>
): Promise<SessionResult | null> {
  // Concurrent requests for one session share a run (see ScoringRuns): a burst costs two scorings, not one each.
  return scoring
    ? scoring.run(`${orgId}/${sessionId}`, () => readOrScore(db, orgId, sessionId, now))
    : readOrScore(db, orgId, sessionId, now)
}

async function readOrScore(db: Db, orgId: string, sessionId: string, now: Date): Promise<SessionResult | null> {
  const read = await db.tenant(orgId, async (tx) => {
    const row = await repo.findSession(tx, orgId, sessionId)
    if (!row || isFresh(row)) return { row, input: null }
    return { row, input: await repo.scoringInput(tx, orgId, sessionId) }
  })
  if (!read.row) return null
  if (!read.input) return toResult(read.row)
  // A reader that loses the race to a score of at least as many batches answers with its own: it
  // covers every batch stored when the caller asked, and scoring again behind a busy session could
  // lose again and again.
  const { stored, scored } = await scoreAndStore(db, orgId, sessionId, read.input, now)
  const covered = { batches: read.input.batches, signals: read.input.signalCount }
  return toResult(stored ?? { ...read.row, ...scored, scored_at: now }, covered)
}

/**
 * Scores the session over its stored signals as they were at read time, in batch (arrival) order,
 * never re-sorted (time going back across batches is itself evidence), with the latest batch's client
 * vector; then stores the score unless a score of as many batches or more got there first (stored is
 * null then).
 */
async function scoreAndStore(db: Db, orgId: string, sessionId: string, input: repo.ScoringInput, now: Date) {
  const signals = sessionSignals(input)
  const print = fingerprint(signals)
  const material = sessionMaterial(orgId, signals)
  // Replay is judged when the score is computed, against the organization's fingerprints and reused
  // material (replay-store.ts) stored by then; the verdict with the organization's thresholds as they
  // are now (a change applies from then on).
  const [replayed, thresholds, reused] = await db.tenant(orgId, (tx) =>
    Promise.all([
      repo.fingerprintSeenElsewhere(tx, orgId, print, sessionId),
      getThresholds(tx, orgId),
      findReuse(tx, orgId, sessionId, material),
    ])
  )
  const scored = score({ signals, clientFeatures: input.clientFeatures, replayed, reused }, thresholds)
  const row = await db.tenant(orgId, async (tx) => {
    const stored = await repo.storeScore(tx, { orgId, sessionId, batches: input.batches, fingerprint: print, now, scored })
    // the material goes with the score that read it: a score that lost the race stores nothing
    if (stored) await storeMaterial(tx, orgId, sessionId, material)
    return stored
  })
  return { stored: row, scored }
}

/** Every stored signal of the scored batches, concatenated in seq order (purged batches contribute none). */
export function sessionSignals(input: repo.ScoringInput): Signal[] {
  const out: Signal[] = []
  for (const batch of input.signals) if (batch) for (const s of batch) out.push(s)
  return out
}

/**
 * Computes and stores the score of sessions whose stored score is stale and whose last batch arrived
 * before `quietSince`, up to `limit` of them, oldest first; returns how many. The retention job runs it
 * before dropping partitions, so no session loses raw signals its score has not yet seen; a session
 * that fails to score is skipped (and its day's partition kept).
 */
export async function settleStaleSessions(db: Db, now: Date, quietSince: Date, limit = 1000): Promise<number> {
  return (await scoreStale(db, now, quietSince, limit)).seen
}

/** Scores the stale sessions quiet since `quietSince`; one that fails is skipped and reported, an outage stops all. */
async function scoreStale(db: Db, now: Date, quietSince: Date, limit: number) {
  const stale = await repo.staleSessions(db.sql, quietSince, limit)
  let scored = 0
  const errors: string[] = []
  for (const s of stale) {
    try {
      const input = await db.tenant(s.org_id, (tx) => repo.scoringInput(tx, s.org_id, s.session_id))
      if (input) await scoreAndStore(db, s.org_id, s.session_id, input, now)
      scored++
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error
      errors.push(`${s.org_id}/${s.session_id}: ${String((error as Error)?.message ?? error)}`)
    }
  }
  return { seen: stale.length, scored, errors }
}

/** A session is scored in the background once no batch has arrived for this long (the SDK flushes every few seconds). */
export const QUIET_MS = 30_000

/**
 * The background scorer's tick (jobs/scorer.ts): scores up to `limit` sessions whose stored score is
 * stale or missing and that have been quiet for QUIET_MS, oldest first, so the dashboard shows verdicts
 * for SDK sessions no secret key ever asks for. One session failing to score is skipped (and reported),
 * never stops the others. Returns how many were scored and how many failed.
 */
export async function scoreQuietSessions(db: Db, now: Date, limit = 200): Promise<{ scored: number; failed: number; errors: string[] }> {
  const { scored, errors } = await scoreStale(db, now, new Date(now.getTime() - QUIET_MS), limit)
  return { scored, failed: errors.length, errors }
}

const DAY_MS = 24 * 3600_000
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10)

/** Partitions known to exist (or being created), per database: tests run several in one process. */
const knownPartitions = new WeakMap<Db, Map<string, Promise<void>>>()

/**
 * Makes sure the partitions of these days exist. Cached per process, so a batch normally costs a map
 * lookup, and concurrent batches of a new day wait for one creation; the periodic job
 * (jobs/partitions.ts) creates days ahead, so ingest rarely does DDL.
 */
export function ensurePartitions(db: Db, days: string[]): Promise<unknown> {
  let known = knownPartitions.get(db)
  if (!known) knownPartitions.set(db, (known = new Map<string, Promise<void>>()))
  // the common case, one day already made: its promise as it is
  const made = days.length === 1 ? known.get(days[0]!) : undefined
  if (made) return made
  return Promise.all(
    days.map((day) => {
      let made = known.get(day)
      if (!made) {
        made = repo.addBatchPartitions(db.sql, [day])
        known.set(day, made)
        // A failed creation (an outage) is tried again by the next batch.
        made.catch(() => known.delete(day))
      }
      return made
    })
  )
}

/**
 * The days a batch arriving at `now` can belong to: its session started at most 30 minutes ago
 * (an hour, against clocks of instances that differ), or is new.
 */
function batchDays(now: Date): string[] {
  const t = now.getTime()
  const days = [dayOf(t - 2 * SESSION_WINDOW_MS), dayOf(t)]
  return days[0] === days[1] ? [days[1]!] : days
}

const HOUR_MS = 3600_000
/** The last hour asked for (one entry: clocks only move forward, tests' clocks too, mostly). */
let lastHour: { hour: number; month: string; days: string[] } | undefined

/**
 * A batch's month (YYYY-MM-01, UTC) and partition days, the same for every batch of one UTC hour
 * (days and months start on the hour, and batchDays looks back a whole hour): made once an hour
 * instead of three Dates and ISO strings per batch.
 */
function hourOf(now: Date): { month: string; days: string[] } {
  const hour = Math.floor(now.getTime() / HOUR_MS)
  if (lastHour?.hour !== hour) lastHour = { hour, month: monthStartUtc(now).toISOString().slice(0, 10), days: batchDays(now) }
  return lastHour
}

/** Creates the partitions of today and the next `ahead` days (jobs/partitions.ts, hourly and at start). */
export async function createPartitionsAhead(db: Db, now: Date, ahead = 3): Promise<string[]> {
  const days = Array.from({ length: ahead + 1 }, (_, i) => dayOf(now.getTime() + i * DAY_MS))
  await repo.addBatchPartitions(db.sql, days)
  return days
}

/**
 * Retention: drops the partition of every day whose sessions' batches all arrived more than
 * retentionDays ago (a day's sessions take batches until 30 minutes after it ends). Before that it
 * scores every session with a stale score among them (settleStaleSessions), so no score is ever
 * computed without signals it should have seen; a day that still has a stale session (one that fails
 * to score) keeps its partition until a later run. Sessions, their counts and results stay. Returns
 * the days dropped.
 */
export async function purgeOldSignals(db: Db, now: Date, retentionDays: number): Promise<string[]> {
  const cutoff = now.getTime() - retentionDays * DAY_MS
  // A session with batches received before the cutoff had its last batch at most one window later.
  const quietSince = new Date(cutoff + SESSION_WINDOW_MS)
  for (let round = 0; round < 20 && (await settleStaleSessions(db, now, quietSince, 500)) === 500; round++);
  const dropped: string[] = []
  for (const day of await repo.batchPartitionDays(db.sql)) {
    const start = Date.parse(`${day}T00:00:00Z`)
    const end = start + DAY_MS
    if (end + SESSION_WINDOW_MS > cutoff) break
    if (await repo.staleSessionStartedIn(db.sql, new Date(start), new Date(end))) continue
    if (await repo.dropBatchPartition(db.sql, day)) dropped.push(day)
    knownPartitions.get(db)?.delete(day)
  }
  return dropped
}
