import { createHash } from 'node:crypto'
import type { Db, Sql, Tx } from '../../platform/db'
import type { AppDeps } from '../../deps'
import { ApiError } from '../../platform/errors'
import { monthStartUtc, nextMonthStartUtc, secondsUntil } from '../../platform/clock'
import { startPeriodic } from '../../jobs/periodic'
import type { Signal } from '../../../scoring/signals'
import type { IngestBody } from './model'
import { fingerprint, score } from './scoring'

/** A session takes batches for this long after its first one. */
export const SESSION_WINDOW_MS = 30 * 60_000

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
}

/** The organization's monthly allowance after this request, for the X-Quota-* headers. */
export type Quota = { limit: number; used: number; resetSeconds: number }

export type IngestOutcome = { result: SessionResult; accepted: number; quota: Quota }

export function quotaHeaders(q: Quota): Record<string, string> {
  return {
    'x-quota-limit': String(q.limit),
    'x-quota-remaining': String(Math.max(0, q.limit - q.used)),
    'x-quota-reset': String(q.resetSeconds),
  }
}

type SessionRow = {
  session_id: string
  hcs: string | number
  m3_score: string | number
  verdict: string
  reasons: string[]
  signal_count: number
  batch_count: number
  model_version: string
  first_seen_at: Date
  scored_at: Date
}

function toResult(row: SessionRow): SessionResult {
  return {
    session_id: row.session_id,
    hcs: Number(row.hcs),
    m3_score: Number(row.m3_score),
    verdict: row.verdict,
    reasons: row.reasons,
    signals: row.signal_count,
    batches: row.batch_count,
    model_version: row.model_version,
    first_seen_at: row.first_seen_at.toISOString(),
    scored_at: row.scored_at.toISOString(),
  }
}

/** The stored result of one session of one organization, or null (absent, or another organization's). */
export async function getSessionResult(sql: Sql | Tx, orgId: string, sessionId: string): Promise<SessionResult | null> {
  const [row]: [SessionRow?] = await sql`
    select session_id, hcs, m3_score, verdict, reasons, signal_count, batch_count, model_version, first_seen_at, scored_at
    from sessions where org_id = ${orgId} and session_id = ${sessionId} and scored_at is not null`
  return row ? toResult(row) : null
}

function batchHash(capturedAt: Date, signalsJson: string): string {
  // node:crypto, not the pure-JS sha256 of lib/crypto: a batch can be 1 MiB and this runs on every request.
  return createHash('sha256').update(capturedAt.toISOString()).update('\n').update(signalsJson).digest('hex')
}

type Head = SessionRow & { inserted: boolean; sessions_limit: number; sessions_used: number; replayed: boolean }

/**
 * Appends one batch to its session and rescores the session over all of its stored signals.
 * Creating a session and counting it toward the month happen in one transaction: the guarded
 * upsert on usage_counters is the only gate, so any number of instances never exceed the plan.
 */
export async function ingestBatch(
  db: Db,
  input: { orgId: string; keyPairId?: string; now: Date; body: IngestBody }
): Promise<IngestOutcome> {
  const { orgId, now, body } = input
  const sessionId = body.session_id
  const current = body.signals as Signal[]
  const month = monthStartUtc(now).toISOString().slice(0, 10)
  const resetSeconds = secondsUntil(nextMonthStartUtc(now), now)
  const signalsJson = JSON.stringify(current)
  const hash = batchHash(body.captured_at, signalsJson)
  // A new session's fingerprint is its first batch's: checked for replay in the same statement that creates it.
  const firstPrint = fingerprint(current)

  return db.tenant(orgId, async (tx) => {
    // Creates the session, or locks the existing row (the no-op update) so its batches append one at a time.
    const headQuery = tx<Head[]>`
      with s as (
        insert into sessions (org_id, session_id, key_pair_id, sdk_type, usage_month, first_seen_at, last_batch_at)
        values (${orgId}, ${sessionId}, ${input.keyPairId ?? null}, ${body.sdk_type}, ${month}, ${now}, ${now})
        on conflict (org_id, session_id) do update set last_batch_at = sessions.last_batch_at
        returning (xmax = 0) as inserted, session_id, hcs, m3_score, verdict, reasons, signal_count, batch_count,
          model_version, first_seen_at, scored_at
      )
      select s.*, p.sessions_limit,
        coalesce((select u.sessions_used from usage_counters u where u.org_id = o.org_id and u.month = ${month}), 0)::int as sessions_used,
        exists (select 1 from sessions r where r.org_id = o.org_id and r.fingerprint = ${firstPrint} and r.session_id <> ${sessionId}) as replayed
      from s, organizations o join plans p on p.plan_id = o.plan_id
      where o.org_id = ${orgId}`
    // Sent in the same round trip but run after the statement above, so once the row lock is held: a batch
    // committed by a concurrent request is seen (and a retry of it recognised). Empty for a new session.
    const storedQuery = tx<{ signal_count: number; duplicate: boolean; signals: Signal[] | null }[]>`
      select signal_count, batch_hash = ${hash} as duplicate, signals
      from session_batches where org_id = ${orgId} and session_id = ${sessionId} order by seq`
    const [[head], stored] = await Promise.all([headQuery, storedQuery])
    if (!head) throw new ApiError('unauthorized', 'the organization no longer exists')
    const quota: Quota = { limit: head.sessions_limit, used: head.sessions_used, resetSeconds }
    const refuse = () =>
      new ApiError('plan_limit_exceeded', `the organization's plan allows ${quota.limit} sessions per month; it resets at the start of next month (UTC)`, undefined, {
        ...quotaHeaders({ ...quota, used: Math.max(quota.used, quota.limit) }),
        'retry-after': String(resetSeconds),
      })
    // Fast refusal for a new session when the month is already used up (the counter only grows);
    // the guarded upsert below stays the authority.
    if (head.inserted && quota.used >= quota.limit) throw refuse()

    let all = current
    let print = firstPrint
    let replayed = head.replayed
    if (!head.inserted) {
      const original = stored.find((b) => b.duplicate)
      // A retried batch answers as the original did and changes nothing (also after the window closed).
      if (original) return { result: toResult(head), accepted: original.signal_count, quota }
      if (now.getTime() - head.first_seen_at.getTime() >= SESSION_WINDOW_MS) {
        throw new ApiError('conflict', 'this session is closed: it takes batches for 30 minutes after its first one; start a new session', undefined, quotaHeaders(quota))
      }
      // Batch (arrival) order, never re-sorted: time going back across batches is itself evidence for the model.
      all = stored.flatMap((b) => b.signals ?? []).concat(current)
      print = fingerprint(all)
      if (print !== firstPrint) {
        const seen = await tx`
          select 1 from sessions where org_id = ${orgId} and fingerprint = ${print} and session_id <> ${sessionId} limit 1`
        replayed = seen.length > 0
      }
    }

    const scored = score({ signals: all, clientFeatures: body.features, replayed })
    const seq = head.batch_count + 1
    const signalCount = head.signal_count + current.length
    // The plan limit is read inside the same statement that takes the count; no row back = limit reached.
    const countSession = head.inserted
      ? tx`, counted as (
          insert into usage_counters as u (org_id, month, sessions_used)
          select o.org_id, ${month}, 1 from organizations o join plans p on p.plan_id = o.plan_id
          where o.org_id = ${orgId} and p.sessions_limit > 0
          on conflict (org_id, month) do update set sessions_used = u.sessions_used + 1
          where u.sessions_used < (select p.sessions_limit from organizations o join plans p on p.plan_id = o.plan_id where o.org_id = ${orgId})
          returning sessions_used
        )
        select (select sessions_used from counted) as sessions_used`
      : tx`select null::int as sessions_used`
    const [written]: [{ sessions_used: number | null }?] = await tx`
      with batch as (
        insert into session_batches (org_id, session_id, seq, captured_at, batch_hash, signal_count, signals, received_at)
        values (${orgId}, ${sessionId}, ${seq}, ${body.captured_at}, ${hash}, ${current.length}, ${signalsJson}::text::jsonb, ${now})
      ), session as (
        update sessions set last_batch_at = ${now}, batch_count = ${seq}, signal_count = ${signalCount},
          client_features = ${body.features}::float8[], fingerprint = ${print}, hcs = ${scored.hcs}, m3_score = ${scored.m3_score},
          verdict = ${scored.verdict}, reasons = ${scored.reasons}::text[], model_version = ${scored.model_version}, scored_at = ${now}
        where org_id = ${orgId} and session_id = ${sessionId}
      )${countSession}`
    if (head.inserted) {
      if (written?.sessions_used == null) throw refuse()
      quota.used = written.sessions_used
    }

    const result = toResult({
      session_id: sessionId,
      ...scored,
      signal_count: signalCount,
      batch_count: seq,
      first_seen_at: head.first_seen_at,
      scored_at: now,
    })
    return { result, accepted: current.length, quota }
  })
}

/**
 * Retention: drops the raw signals of batches received more than retentionDays ago, in chunks of
 * `chunk` rows (short transactions, no long lock), keeping counts and results. Returns batches purged.
 */
export async function purgeOldSignals(db: Db, now: Date, retentionDays: number, chunk = 1000): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 24 * 3600_000)
  let total = 0
  for (;;) {
    const purged = await db.sql`
      update session_batches b set signals = null
      from (select org_id, session_id, seq from session_batches
            where signals is not null and received_at < ${cutoff}
            order by received_at limit ${chunk} for update skip locked) old
      where b.org_id = old.org_id and b.session_id = old.session_id and b.seq = old.seq`
    total += purged.count
    if (purged.count < chunk) return total
  }
}

const PURGE_EVERY_MS = 3600_000

/** Runs purgeOldSignals every hour (and once a minute after start); returns the stop function. */
export function startRetention(deps: AppDeps): () => void {
  return startPeriodic(deps, 'retention purge', PURGE_EVERY_MS, async () => {
    const purged = await purgeOldSignals(deps.db, deps.clock.now(), deps.config.retentionDays)
    return purged > 0 ? { batches: purged, retention_days: deps.config.retentionDays } : null
  })
}
