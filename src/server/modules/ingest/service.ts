import { createHash } from 'node:crypto'
import type { Signal } from '../../../scoring/signals'
import { monthStartUtc } from '../../platform/clock'
import type { Db, Tx } from '../../platform/db'
import { ApiError } from '../../platform/errors'
import { claimSession, type Quota, quotaExceeded, quotaHeaders, readQuota } from '../usage'
import type { IngestBody } from './model'
import * as repo from './repo'
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

export type { Quota } from '../usage'
export type IngestOutcome = { result: SessionResult; accepted: number; quota: Quota }

function toResult(row: repo.SessionRow): SessionResult {
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

/**
 * The stored result of one session of one organization, or null (absent, or another organization's).
 * Read inside db.tenant, so row-level security is a second wall behind the org_id in the query.
 */
export function getSessionResult(db: Db, orgId: string, sessionId: string): Promise<SessionResult | null> {
  return db.tenant(orgId, async (tx) => {
    const row = await repo.findScoredSession(tx, orgId, sessionId)
    return row ? toResult(row) : null
  })
}

type IngestInput = { orgId: string; keyPairId?: string; now: Date; body: IngestBody }

/** What is computed from the request alone, before any query. */
type Batch = { signals: Signal[]; json: string; hash: string; firstPrint: string | null; month: string }

function prepareBatch({ body, now }: IngestInput): Batch {
  const signals = body.signals as Signal[]
  const json = JSON.stringify(signals)
  // node:crypto, not the pure-JS sha256 of platform/crypto: a batch can be 1 MiB and this runs on every request.
  const hash = createHash('sha256').update(body.captured_at.toISOString()).update('\n').update(json).digest('hex')
  return { signals, json, hash, firstPrint: fingerprint(signals), month: monthStartUtc(now).toISOString().slice(0, 10) }
}

/**
 * Opens (creates, or locks) the session and reads what the batch is judged against, in one round
 * trip: the month's quota, the session row, and its stored batches. The batches are read after the
 * row lock is taken, so a batch committed by a concurrent request is seen (and a retry of it recognised).
 */
async function openSession(tx: Tx, input: IngestInput, batch: Batch) {
  const { orgId, now, body } = input
  const [quota, head, stored] = await Promise.allSettled([
    readQuota(tx, orgId, now),
    repo.openSession(tx, {
      orgId,
      sessionId: body.session_id,
      keyPairId: input.keyPairId ?? null,
      sdkType: body.sdk_type,
      month: batch.month,
      now,
      firstPrint: batch.firstPrint,
    }),
    repo.storedBatches(tx, orgId, body.session_id, batch.hash),
  ])
  if (quota.status === 'fulfilled' && !quota.value) throw new ApiError('unauthorized', 'the organization no longer exists')
  for (const r of [quota, head, stored]) if (r.status === 'rejected') throw r.reason
  return {
    quota: (quota as PromiseFulfilledResult<Quota>).value,
    head: (head as PromiseFulfilledResult<repo.SessionHead>).value,
    stored: (stored as PromiseFulfilledResult<repo.StoredBatch[]>).value,
  }
}

/** Every signal of the session in arrival order, never re-sorted: time going back across batches is itself evidence. */
async function sessionEvidence(tx: Tx, input: IngestInput, batch: Batch, head: repo.SessionHead, stored: repo.StoredBatch[]) {
  if (head.inserted) return { signals: batch.signals, print: batch.firstPrint, replayed: head.replayed }
  const signals = stored.flatMap((b) => b.signals ?? []).concat(batch.signals)
  const print = fingerprint(signals)
  const replayed =
    print === batch.firstPrint ? head.replayed : await repo.fingerprintSeenElsewhere(tx, input.orgId, print, input.body.session_id)
  return { signals, print, replayed }
}

/** A retried batch (same hash) answers as the original did and changes nothing, also after the window closed. */
function answerRetry(head: repo.SessionHead, stored: repo.StoredBatch[], quota: Quota): IngestOutcome | null {
  const original = head.inserted ? undefined : stored.find((b) => b.duplicate)
  return original ? { result: toResult(head), accepted: original.signal_count, quota } : null
}

/** A new session needs quota left; an existing one must still be inside its 30-minute window. */
function checkAdmissible(head: repo.SessionHead, quota: Quota, now: Date): void {
  // Fast refusal when the month is already used up (the counter only grows); claimSession stays the authority.
  if (head.inserted && quota.used >= quota.limit) throw quotaExceeded(quota)
  if (!head.inserted && now.getTime() - head.first_seen_at.getTime() >= SESSION_WINDOW_MS) {
    throw new ApiError(
      'conflict',
      'this session is closed: it takes batches for 30 minutes after its first one; start a new session',
      undefined,
      quotaHeaders(quota)
    )
  }
}

/** Stores the batch and the session's new score; returns the session's result as the response shows it. */
async function storeBatch(
  tx: Tx,
  { orgId, now, body }: IngestInput,
  batch: Batch,
  head: repo.SessionHead,
  print: string | null,
  scored: ReturnType<typeof score>
): Promise<SessionResult> {
  const seq = head.batch_count + 1
  const signalCount = head.signal_count + batch.signals.length
  await repo.appendBatch(tx, {
    orgId,
    sessionId: body.session_id,
    seq,
    capturedAt: body.captured_at,
    hash: batch.hash,
    signalCount: batch.signals.length,
    signalsJson: batch.json,
    now,
    sessionSignalCount: signalCount,
    features: body.features,
    fingerprint: print,
    scored,
  })
  return toResult({
    session_id: body.session_id,
    ...scored,
    signal_count: signalCount,
    batch_count: seq,
    first_seen_at: head.first_seen_at,
    scored_at: now,
  })
}

/**
 * Appends one batch to its session and rescores the session over all of its stored signals.
 * Creating a session and counting it toward the month (usage's claimSession) happen in one
 * transaction, so any number of instances never exceed the plan.
 */
export async function ingestBatch(db: Db, input: IngestInput): Promise<IngestOutcome> {
  const batch = prepareBatch(input)
  return db.tenant(input.orgId, async (tx) => {
    const { quota, head, stored } = await openSession(tx, input, batch)
    const retry = answerRetry(head, stored, quota)
    if (retry) return retry
    checkAdmissible(head, quota, input.now)
    const evidence = await sessionEvidence(tx, input, batch, head, stored)
    const scored = score({ signals: evidence.signals, clientFeatures: input.body.features, replayed: evidence.replayed })
    // Sent together, the claim last: the counter row is locked only until the commit right after it,
    // and a refused claim rolls the stored batch back.
    const [result, quotaAfter] = await Promise.all([
      storeBatch(tx, input, batch, head, evidence.print, scored),
      head.inserted ? claimSession(tx, input.orgId, input.now, quota) : quota,
    ])
    return { result, accepted: batch.signals.length, quota: quotaAfter }
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
    const purged = await repo.purgeSignalsBefore(db.sql, cutoff, chunk)
    total += purged
    if (purged < chunk) return total
  }
}
