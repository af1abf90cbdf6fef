import type { Signal } from '../../../scoring/signals'
import type { Sql, Tx } from '../../platform/db'

/** The only file that names sessions and session_batches in SQL. */

export type SessionRow = {
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

/** The session as the batch found it: `inserted` when this batch created it. */
export type SessionHead = SessionRow & { inserted: boolean; replayed: boolean }

/**
 * Creates the session, or locks the existing row (the no-op update) so its batches append one at a time.
 * A new session's fingerprint is its first batch's: checked for replay in the same statement that creates it.
 */
export async function openSession(
  tx: Tx,
  s: { orgId: string; sessionId: string; keyPairId: string | null; sdkType: string; month: string; now: Date; firstPrint: string | null }
): Promise<SessionHead> {
  const [head] = await tx<SessionHead[]>`
    with s as (
      insert into sessions (org_id, session_id, key_pair_id, sdk_type, usage_month, first_seen_at, last_batch_at)
      values (${s.orgId}, ${s.sessionId}, ${s.keyPairId}, ${s.sdkType}, ${s.month}, ${s.now}, ${s.now})
      on conflict (org_id, session_id) do update set last_batch_at = sessions.last_batch_at
      returning (xmax = 0) as inserted, session_id, hcs, m3_score, verdict, reasons, signal_count, batch_count,
        model_version, first_seen_at, scored_at
    )
    select s.*,
      exists (select 1 from sessions r where r.org_id = ${s.orgId} and r.fingerprint = ${s.firstPrint} and r.session_id <> ${s.sessionId}) as replayed
    from s`
  return head!
}

export type StoredBatch = { signal_count: number; duplicate: boolean; signals: Signal[] | null }

/** The session's stored batches in arrival order; `duplicate` marks the one with this batch's hash. */
export function storedBatches(tx: Tx, orgId: string, sessionId: string, hash: string): Promise<StoredBatch[]> {
  return tx<StoredBatch[]>`
    select signal_count, batch_hash = ${hash} as duplicate, signals
    from session_batches where org_id = ${orgId} and session_id = ${sessionId} order by seq`
}

export async function fingerprintSeenElsewhere(tx: Tx, orgId: string, print: string | null, sessionId: string): Promise<boolean> {
  const seen = await tx`
    select 1 from sessions where org_id = ${orgId} and fingerprint = ${print} and session_id <> ${sessionId} limit 1`
  return seen.length > 0
}

/** Stores the batch and the session's new score in one statement. */
export async function appendBatch(
  tx: Tx,
  b: {
    orgId: string
    sessionId: string
    seq: number
    capturedAt: Date
    hash: string
    signalCount: number
    signalsJson: string
    now: Date
    sessionSignalCount: number
    features: number[]
    fingerprint: string | null
    scored: { hcs: number; m3_score: number; verdict: string; reasons: string[]; model_version: string }
  }
): Promise<void> {
  const { scored } = b
  await tx`
    with batch as (
      insert into session_batches (org_id, session_id, seq, captured_at, batch_hash, signal_count, signals, received_at)
      values (${b.orgId}, ${b.sessionId}, ${b.seq}, ${b.capturedAt}, ${b.hash}, ${b.signalCount}, ${b.signalsJson}::text::jsonb, ${b.now})
    )
    update sessions set last_batch_at = ${b.now}, batch_count = ${b.seq}, signal_count = ${b.sessionSignalCount},
      client_features = ${b.features}::float8[], fingerprint = ${b.fingerprint}, hcs = ${scored.hcs}, m3_score = ${scored.m3_score},
      verdict = ${scored.verdict}, reasons = ${scored.reasons}::text[], model_version = ${scored.model_version}, scored_at = ${b.now}
    where org_id = ${b.orgId} and session_id = ${b.sessionId}`
}

export async function findScoredSession(tx: Sql | Tx, orgId: string, sessionId: string): Promise<SessionRow | null> {
  const [row]: [SessionRow?] = await tx`
    select session_id, hcs, m3_score, verdict, reasons, signal_count, batch_count, model_version, first_seen_at, scored_at
    from sessions where org_id = ${orgId} and session_id = ${sessionId} and scored_at is not null`
  return row ?? null
}

/** Drops the raw signals of up to `chunk` batches received before `cutoff`; returns how many. */
export async function purgeSignalsBefore(sql: Sql, cutoff: Date, chunk: number): Promise<number> {
  const purged = await sql`
    update session_batches b set signals = null
    from (select org_id, session_id, seq from session_batches
          where signals is not null and received_at < ${cutoff}
          order by received_at limit ${chunk} for update skip locked) old
    where b.org_id = old.org_id and b.session_id = old.session_id and b.seq = old.seq`
  return purged.count
}
