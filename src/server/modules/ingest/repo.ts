import type { Signal } from '../../../scoring/signals'
import type { Sql, Tx } from '../../platform/db'

/** The only file that names sessions and session_batches in SQL. */

/** The stored result columns; hcs … scored_at are null until the session is first scored. */
export type SessionRow = {
  session_id: string
  hcs: string | number | null
  m3_score: string | number | null
  verdict: string | null
  reasons: string[]
  signal_count: number
  batch_count: number
  model_version: string | null
  first_seen_at: Date
  scored_at: Date | null
  /** the batch count the stored score covers; stale when it differs from batch_count */
  scored_batches: number | null
}

/** The session as a batch found it, after its row lock: `inserted` when this batch created it. */
export type SessionHead = { inserted: boolean; batch_count: number; signal_count: number; first_seen_at: Date }

/**
 * Creates the session, or locks the existing row (the no-op update) so its batches append one at a
 * time. Reads nothing of the session's earlier signals: a batch's cost does not depend on them.
 * A new session starts with its first batch's fingerprint, so a replay of it can be found before it is first scored.
 */
export async function openSession(
  tx: Tx,
  s: { orgId: string; sessionId: string; keyPairId: string | null; sdkType: string; month: string; now: Date; firstPrint: string | null }
): Promise<SessionHead> {
  const [head] = await tx<SessionHead[]>`
    insert into sessions (org_id, session_id, key_pair_id, sdk_type, usage_month, first_seen_at, last_batch_at, fingerprint)
    values (${s.orgId}, ${s.sessionId}, ${s.keyPairId}, ${s.sdkType}, ${s.month}, ${s.now}, ${s.now}, ${s.firstPrint})
    on conflict (org_id, session_id) do update set last_batch_at = sessions.last_batch_at
    returning (xmax = 0) as inserted, batch_count, signal_count, first_seen_at`
  return head!
}

/** The signal count of the session's batch with this hash (a retry), or null. One index probe. */
export async function findBatchByHash(tx: Tx, orgId: string, sessionId: string, hash: string): Promise<number | null> {
  const [row]: [{ signal_count: number }?] = await tx`
    select signal_count from session_batches where org_id = ${orgId} and session_id = ${sessionId} and batch_hash = ${hash}`
  return row?.signal_count ?? null
}

/** Stores the batch and moves the session's counters on; the stored score becomes stale (batch_count ≠ scored_batches). */
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
  }
): Promise<void> {
  await tx`
    with batch as (
      insert into session_batches (org_id, session_id, seq, captured_at, batch_hash, signal_count, signals, received_at)
      values (${b.orgId}, ${b.sessionId}, ${b.seq}, ${b.capturedAt}, ${b.hash}, ${b.signalCount}, ${b.signalsJson}::text::jsonb, ${b.now})
    )
    update sessions set last_batch_at = ${b.now}, batch_count = ${b.seq}, signal_count = ${b.sessionSignalCount},
      client_features = ${b.features}::float8[]
    where org_id = ${b.orgId} and session_id = ${b.sessionId}`
}

/** Undoes a session created in the current transaction (its batch goes with it: on delete cascade). */
export async function deleteSession(tx: Tx, orgId: string, sessionId: string): Promise<void> {
  await tx`delete from sessions where org_id = ${orgId} and session_id = ${sessionId}`
}

const RESULT_COLUMNS =
  'session_id, hcs, m3_score, verdict, reasons, signal_count, batch_count, model_version, first_seen_at, scored_at, scored_batches'

export async function findSession(tx: Sql | Tx, orgId: string, sessionId: string): Promise<SessionRow | null> {
  const [row]: [SessionRow?] = await tx`
    select ${tx.unsafe(RESULT_COLUMNS)} from sessions where org_id = ${orgId} and session_id = ${sessionId}`
  return row ?? null
}

/** What a score is computed from: every stored signal of the first `batches` batches, in seq order, and the latest client vector. */
export type ScoringInput = { batches: number; signalCount: number; clientFeatures: number[]; signals: (Signal[] | null)[] }

/**
 * The session's batches up to the count on its row, with that row's client vector, in one statement
 * (one snapshot): a batch appended meanwhile is left out, so vector and signals always belong together.
 */
export async function scoringInput(tx: Tx, orgId: string, sessionId: string): Promise<ScoringInput | null> {
  const rows = await tx<{ batch_count: number; client_features: number[] | null; signal_count: number; signals: Signal[] | null }[]>`
    select s.batch_count, s.client_features, b.signal_count, b.signals
    from sessions s join session_batches b on b.org_id = s.org_id and b.session_id = s.session_id and b.seq <= s.batch_count
    where s.org_id = ${orgId} and s.session_id = ${sessionId}
    order by b.seq`
  if (!rows.length) return null
  return {
    batches: rows[0]!.batch_count,
    signalCount: rows.reduce((n, r) => n + r.signal_count, 0),
    clientFeatures: rows[0]!.client_features ?? [],
    signals: rows.map((r) => r.signals),
  }
}

export async function fingerprintSeenElsewhere(tx: Tx, orgId: string, print: string | null, sessionId: string): Promise<boolean> {
  if (print === null) return false
  const seen = await tx`
    select 1 from sessions where org_id = ${orgId} and fingerprint = ${print} and session_id <> ${sessionId} limit 1`
  return seen.length > 0
}

/**
 * Stores a score computed over the first `batches` batches, unless a score of as many or more batches
 * is already stored (two readers scoring at once: the newer view wins). Returns the stored row.
 */
export async function storeScore(
  tx: Tx,
  s: {
    orgId: string
    sessionId: string
    batches: number
    fingerprint: string | null
    now: Date
    scored: { hcs: number; m3_score: number; verdict: string; reasons: string[]; model_version: string }
  }
): Promise<SessionRow | null> {
  const { scored } = s
  const [row]: [SessionRow?] = await tx`
    update sessions set fingerprint = ${s.fingerprint}, hcs = ${scored.hcs}, m3_score = ${scored.m3_score}, verdict = ${scored.verdict},
      reasons = ${scored.reasons}::text[], model_version = ${scored.model_version}, scored_at = ${s.now}, scored_batches = ${s.batches}
    where org_id = ${s.orgId} and session_id = ${s.sessionId} and (scored_batches is null or scored_batches < ${s.batches})
    returning ${tx.unsafe(RESULT_COLUMNS)}`
  return row ?? null
}

/** Sessions whose stored score is stale and whose last batch arrived before `quietSince` (oldest first). */
export async function staleSessions(sql: Sql, quietSince: Date, limit: number): Promise<{ org_id: string; session_id: string }[]> {
  return sql<{ org_id: string; session_id: string }[]>`
    select org_id, session_id from sessions
    where scored_batches is distinct from batch_count and last_batch_at < ${quietSince}
    order by last_batch_at limit ${limit}`
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

/** findSession under its earlier name (tests/web/demo-result-rls.test.ts reads it). */
export const findScoredSession = findSession
