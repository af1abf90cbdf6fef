import type { Signal } from '../../../scoring/signals'
import type { Sql, Tx } from '../../platform/db'
import { unpackSignals } from './codec'

/** The only file that names sessions, session_batches, session_verdict_days, session_replay and session_replay_keys in SQL. */

/** A stored batch's signals: packed (0012), or JSONB written before it; null once purged. */
type StoredSignals = { signals: Signal[] | null; packed: Uint8Array | null }
const signalsOf = (row: StoredSignals): Signal[] | null => (row.packed ? unpackSignals(row.packed) : row.signals)

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
  /** the customer's label, if any */
  label: 'human' | 'bot' | null
}

/**
 * The session's start, the partition key of its batches, as a subquery: PostgreSQL then reads one
 * partition of session_batches (pruned when the statement runs), not one index probe per day.
 */
const startOf = (tx: Tx, orgId: string, sessionId: string) =>
  tx`(select first_seen_at from sessions where org_id = ${orgId} and session_id = ${sessionId})`

// ---- The write of a group of batches (group commit): one statement, one round trip (sql/0014, 0016) ----

/** One batch of a group, as ingest_write_group takes it. */
export type GroupRow = {
  sessionId: string
  keyPairId: string | null
  sdkType: string
  at: Date
  firstPrint: string | null
  hash: string
  /** the batch's hash in the form before sql/0016 (over its JSON), given only when the statement asked for it ('legacy') */
  legacyHash: string | null
  capturedAt: Date
  signalCount: number
  packed: Uint8Array
  features: number[]
}

/** What ingest_write_group decided for one batch (see sql/0014 for the outcomes, sql/0016 for 'legacy'). */
export type GroupOutcome = {
  outcome: 'stored' | 'counted' | 'retry' | 'legacy' | 'closed' | 'full' | 'quota' | 'no_org'
  accepted: number
  session_signals: number | null
  quota_limit: number
  quota_used: number
}

/**
 * Writes a group of batches (distinct sessions of one organization and one month, in session order)
 * with ingest_write_group: create-or-lock, retry probe, each batch's checks, store, count the new
 * sessions, in one statement. It must be sent alone, outside any transaction: it runs in the
 * statement's own transaction (tenant role and app.org_id set locally there), which commits before
 * the answer arrives (postgres.js resolves a query at ReadyForQuery, after the commit's WAL flush).
 * The rows go as arrays, one per column (one row per batch in each).
 */
export function writeBatches(
  sql: Sql,
  orgId: string,
  g: { month: string; windowMs: number; maxSignals: number },
  rows: GroupRow[]
): Promise<GroupOutcome[]> {
  // Parameters go as text (postgres.js): the features as one float8[] literal (numbers need no quoting,
  // and postgres.js would escape each), the packed bytes as one bytea with each batch's end offset.
  const features = rows.map((r) => r.features.join(',')).join(',')
  const ends: number[] = []
  let end = 0
  for (const r of rows) ends.push((end += r.packed.length))
  const packed = Buffer.concat(
    rows.map((r) => r.packed),
    end
  )
  // The other arrays as literals too: postgres.js's generic array serializer (type inference and an
  // escape per element) was ≈ 2 % of the service's CPU per batch.
  const column = (value: (r: GroupRow) => string | null) => arrayLiteral(rows.map(value))
  return sql<GroupOutcome[]>`
    select * from ingest_write_group(${orgId}::uuid, ${g.month}::date, ${g.windowMs}::int, ${g.maxSignals}::int,
      ${column((r) => r.sessionId)}::uuid[], ${column((r) => r.keyPairId)}::uuid[], ${column((r) => r.sdkType)}::text[],
      ${column((r) => r.at.toISOString())}::timestamptz[], ${column((r) => r.firstPrint)}::text[], ${column((r) => r.hash)}::text[],
      ${column((r) => r.legacyHash)}::text[], ${column((r) => r.capturedAt.toISOString())}::timestamptz[],
      ${`{${rows.map((r) => r.signalCount).join(',')}}`}::int[], ${packed}::bytea, ${`{${ends.join(',')}}`}::int[], ${`{${features}}`}::float8[])`
}

/** An array literal of text elements: each one double-quoted (a backslash or quote escaped), null as NULL. */
export function arrayLiteral(values: readonly (string | null)[]): string {
  let out = '{'
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    if (i > 0) out += ','
    if (v === null) out += 'NULL'
    else out += `"${v.includes('\\') || v.includes('"') ? v.replace(/[\\"]/g, '\\$&') : v}"`
  }
  return `${out}}`
}

const RESULT_COLUMNS =
  'session_id, hcs, m3_score, verdict, reasons, signal_count, batch_count, model_version, first_seen_at, scored_at, scored_batches, label'

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
  const rows = await tx<({ batch_count: number; client_features: number[] | null; signal_count: number } & StoredSignals)[]>`
    select s.batch_count, s.client_features, b.signal_count, b.signals, b.packed
    from sessions s join session_batches b on b.org_id = s.org_id and b.session_id = s.session_id and b.seq <= s.batch_count
    where s.org_id = ${orgId} and s.session_id = ${sessionId} and b.session_started_at = ${startOf(tx, orgId, sessionId)}
    order by b.seq`
  if (!rows.length) return null
  return {
    batches: rows[0]!.batch_count,
    signalCount: rows.reduce((n, r) => n + r.signal_count, 0),
    clientFeatures: rows[0]!.client_features ?? [],
    signals: rows.map(signalsOf),
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

/**
 * Sessions whose stored score is stale and whose last batch arrived before `quietSince`, oldest first
 * (by first batch: the queue's index rests on columns a batch does not change, so batches stay HOT updates).
 */
export async function staleSessions(sql: Sql, quietSince: Date, limit: number): Promise<{ org_id: string; session_id: string }[]> {
  return sql<{ org_id: string; session_id: string }[]>`
    select org_id, session_id from sessions
    where stale and last_batch_at < ${quietSince}
    order by first_seen_at limit ${limit}`
}

// ---- Time partitions of session_batches (0013): one per UTC day of the sessions' start ----

/** Creates the partition of each day (YYYY-MM-DD) that does not exist yet, of session_batches and session_replay. Needs the owner role, not bss_tenant. */
export async function addBatchPartitions(sql: Sql, days: string[]): Promise<void> {
  // session_replay (0020, replay-store.ts) is partitioned alike, so its days come and go with these
  await sql`select session_batches_add_partition(d::date), session_replay_add_partition(d::date) from unnest(${days}::text[]) d`
}

/** The days (YYYY-MM-DD) that have a partition, oldest first. */
export async function batchPartitionDays(sql: Sql): Promise<string[]> {
  const rows = await sql<{ day: string }[]>`select d::text as day from session_batches_partition_days() d`
  return rows.map((r) => r.day)
}

/**
 * Drops the partition of one day (its batches' raw signals, counts and hashes, and the replay material
 * derived from them). A short lock timeout:
 * dropping needs a moment of exclusive access to session_batches, and ingest must not queue behind it;
 * a drop that times out is tried again on the next run. true when a partition was dropped.
 */
export async function dropBatchPartition(sql: Sql, day: string): Promise<boolean> {
  return sql.begin(async (tx) => {
    await tx`set local lock_timeout = '2s'`
    const [row] = await tx<{ dropped: boolean }[]>`
      select session_batches_drop_partition(${day}::date) as dropped, session_replay_drop_partition(${day}::date) as replay`
    return row!.dropped
  })
}

/** Whether a session first seen in [from, to) still has a stale score (its partition must not go yet). */
export async function staleSessionStartedIn(sql: Sql, from: Date, to: Date): Promise<boolean> {
  const rows = await sql`select 1 from sessions where stale and first_seen_at >= ${from} and first_seen_at < ${to} limit 1`
  return rows.length > 0
}

// ---- Dashboard reads (issue 17) and labels (issue 18) ----

/** A session as the dashboard lists it; cursor_ts is first_seen_at to the microsecond, for the page cursor. */
export type SummaryRow = SessionRow & {
  last_batch_at: Date
  label_note: string | null
  labeled_at: Date | null
  cursor_ts: string
}

const SUMMARY_COLUMNS = `${RESULT_COLUMNS}, last_batch_at, label_note, labeled_at,
  to_char(first_seen_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_ts`

export type ListFilter = {
  first: number
  after: { ts: string; id: string } | null
  verdict: string | null
  label: string | null
  from: Date | null
  to: Date | null
}

/**
 * One page of the organization's sessions, newest first (first_seen_at, then session_id), after the
 * cursor; `first + 1` rows are read so the caller knows whether another page follows. Each filter is
 * a fragment present only when given, so every combination gets its own plan on its own index.
 */
export function listSessions(tx: Tx, orgId: string, f: ListFilter): Promise<SummaryRow[]> {
  const none = tx``
  return tx<SummaryRow[]>`
    select ${tx.unsafe(SUMMARY_COLUMNS)} from sessions
    where org_id = ${orgId}
      ${f.after ? tx`and (first_seen_at, session_id) < (${f.after.ts}::timestamptz, ${f.after.id}::uuid)` : none}
      ${f.verdict ? tx`and verdict = ${f.verdict}` : none}
      ${f.label ? tx`and label = ${f.label}` : none}
      ${period(tx, f.from, f.to)}
    order by first_seen_at desc, session_id desc
    limit ${f.first + 1}`
}

/** first_seen_at in [from, to); an end that is null is open. */
function period(tx: Tx, from: Date | null, to: Date | null) {
  return tx`${from ? tx`and first_seen_at >= ${from}` : tx``} ${to ? tx`and first_seen_at < ${to}` : tx``}`
}

export async function findSummary(tx: Tx, orgId: string, sessionId: string): Promise<SummaryRow | null> {
  const [row]: [SummaryRow?] = await tx`
    select ${tx.unsafe(SUMMARY_COLUMNS)} from sessions where org_id = ${orgId} and session_id = ${sessionId}`
  return row ?? null
}

/** Every stored signal of the session, batch by batch in seq order (null: purged). */
export async function sessionBatches(tx: Tx, orgId: string, sessionId: string): Promise<(Signal[] | null)[]> {
  const rows = await tx<StoredSignals[]>`
    select signals, packed from session_batches
    where org_id = ${orgId} and session_id = ${sessionId} and session_started_at = ${startOf(tx, orgId, sessionId)}
    order by seq`
  return rows.map(signalsOf)
}

/**
 * Sessions per UTC day (of first_seen_at) in [from, to) (day-aligned): scored ones by verdict and hcs
 * decile from the counts the trigger of migration 0010 keeps, unscored ones counted live (few).
 */
export async function verdictStats(
  tx: Tx,
  orgId: string,
  from: Date,
  to: Date
): Promise<{ scored: { day: string; verdict: string; bucket: number; n: number }[]; unscored: { day: string; n: number }[] }> {
  const [scored, unscored] = await Promise.all([
    tx<{ day: string; verdict: string; bucket: number; n: number }[]>`
      select to_char(day, 'YYYY-MM-DD') as day, verdict, bucket, sessions as n
      from session_verdict_days
      where org_id = ${orgId} and day >= ${from.toISOString().slice(0, 10)}::date and day < ${to.toISOString().slice(0, 10)}::date and sessions <> 0`,
    tx<{ day: string; n: number }[]>`
      select to_char(first_seen_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*)::int as n
      from sessions where org_id = ${orgId} and verdict is null and first_seen_at >= ${from} and first_seen_at < ${to}
      group by 1`,
  ])
  return { scored, unscored }
}

export type LabelRow = { session_id: string; label: 'human' | 'bot'; label_note: string | null; labeled_at: Date; labeled_by: string }

/** Sets (or replaces) the session's label; null when the organization has no such session. */
export async function setLabel(
  tx: Tx,
  l: { orgId: string; sessionId: string; label: string; note: string | null; by: string; now: Date }
): Promise<LabelRow | null> {
  const [row]: [LabelRow?] = await tx`
    update sessions set label = ${l.label}, label_note = ${l.note}, labeled_at = ${l.now}, labeled_by = ${l.by}
    where org_id = ${l.orgId} and session_id = ${l.sessionId}
    returning session_id, label, label_note, labeled_at, labeled_by`
  return row ?? null
}

/** Sessions grouped by stored hcs, verdict and label: what error rates and the simulation re-verdict. */
export type VerdictGroup = { hcs: string | number | null; verdict: string | null; label: 'human' | 'bot' | null; n: number }

/**
 * The organization's sessions first seen in [from, to) (either end open when null), counted by hcs,
 * verdict and label: at most ~1,000 hcs values × 5 verdicts × 3 labels groups, however many sessions,
 * so the thresholds are applied in the service by verdictFor itself. `labelledOnly`: error rates need
 * no other session (the label index then bounds the read). Read-only.
 */
export function verdictGroups(tx: Tx, orgId: string, from: Date | null, to: Date | null, labelledOnly: boolean): Promise<VerdictGroup[]> {
  return tx<VerdictGroup[]>`
    select hcs, verdict, label, count(*)::int as n from sessions
    where org_id = ${orgId} ${labelledOnly ? tx`and label is not null` : tx``} ${period(tx, from, to)}
    group by hcs, verdict, label`
}

export type ExportRow = {
  session_id: string
  label: 'human' | 'bot'
  label_note: string | null
  labeled_at: Date
  hcs: string | number | null
  m3_score: string | number | null
  verdict: string | null
  model_version: string | null
  first_seen_at: Date
  cursor_ts: string
}

/** A page of labelled sessions in [from, to), oldest first, after the cursor (the export's order). */
export function labelledPage(
  tx: Tx,
  orgId: string,
  f: { from: Date | null; to: Date | null; after: { ts: string; id: string } | null; limit: number }
): Promise<ExportRow[]> {
  return tx<ExportRow[]>`
    select session_id, label, label_note, labeled_at, hcs, m3_score, verdict, model_version, first_seen_at,
      to_char(first_seen_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_ts
    from sessions
    where org_id = ${orgId} and label is not null
      ${f.after ? tx`and (first_seen_at, session_id) > (${f.after.ts}::timestamptz, ${f.after.id}::uuid)` : tx``}
      ${period(tx, f.from, f.to)}
    order by first_seen_at, session_id
    limit ${f.limit}`
}

/** The stored signals of several sessions, batch by batch in seq order. */
export async function batchesOf(tx: Tx, orgId: string, sessionIds: string[]): Promise<Map<string, (Signal[] | null)[]>> {
  const out = new Map<string, (Signal[] | null)[]>()
  if (!sessionIds.length) return out
  const rows = await tx<({ session_id: string } & StoredSignals)[]>`
    select b.session_id, b.signals, b.packed from sessions s join session_batches b
      on b.org_id = s.org_id and b.session_id = s.session_id and b.session_started_at = s.first_seen_at
    where s.org_id = ${orgId} and s.session_id = any(${sessionIds}::uuid[])
    order by b.session_id, b.seq`
  for (const r of rows) {
    const list = out.get(r.session_id) ?? []
    list.push(signalsOf(r))
    out.set(r.session_id, list)
  }
  return out
}

/** findSession under its earlier name (tests/web/demo-result-rls.test.ts reads it). */
export const findScoredSession = findSession

// ---- Reused material (0020): the replay store's statements; the rule is in replay-store.ts ----

/**
 * The organization's other sessions that started no later than this one and share a key with it, each
 * key counting only its `fanout` most recent such sessions (start, then id, descending: a backward read
 * of the primary key, 0022), and how many keys each shares, most first (ties: by session id), at most
 * `limit`. So a lookup reads at most keys × fanout rows however many sessions share a key.
 */
export function replayKeyMatches(
  tx: Tx,
  orgId: string,
  sessionId: string,
  keys: number[],
  fanout: number,
  limit: number
): Promise<{ session_id: string; shared: number }[]> {
  return tx<{ session_id: string; shared: number }[]>`
    select m.session_id, count(*)::int as shared
    from unnest(${keys}::bigint[]) as q(key)
    cross join lateral (
      select k.session_id from session_replay_keys k
      where k.org_id = ${orgId} and k.key = q.key and k.session_id <> ${sessionId}
        and k.session_started_at <= ${startOf(tx, orgId, sessionId)}
      order by k.session_started_at desc, k.session_id desc
      limit ${fanout}
    ) m
    group by m.session_id
    order by shared desc, m.session_id
    limit ${limit}`
}

/** The stored material of these sessions of the organization. */
export function replayMaterials(tx: Tx, orgId: string, sessionIds: string[]): Promise<{ session_id: string; material: Uint8Array }[]> {
  return tx<{ session_id: string; material: Uint8Array }[]>`
    select session_id, material from session_replay where org_id = ${orgId} and session_id = any(${sessionIds}::uuid[])`
}

/**
 * Stores (or replaces: a later score covers more batches) the session's material and adds its keys, in
 * its start day's partitions. One statement.
 */
export async function storeReplayMaterial(tx: Tx, orgId: string, sessionId: string, keys: number[], material: Uint8Array): Promise<void> {
  await tx`
    with s as (
      select first_seen_at from sessions where org_id = ${orgId} and session_id = ${sessionId}
    ), m as (
      insert into session_replay (org_id, session_id, session_started_at, material)
      select ${orgId}, ${sessionId}, s.first_seen_at, ${material} from s
      on conflict (org_id, session_id, session_started_at) do update set material = excluded.material
    )
    insert into session_replay_keys (org_id, key, session_id, session_started_at)
    select ${orgId}, k, ${sessionId}, s.first_seen_at from s, unnest(${keys}::bigint[]) k
    on conflict do nothing`
}
