// What the dashboard reads about sessions (issue 17) and labels, error rates and the threshold
// simulation (issue 18). Every read runs inside db.tenant (row-level security behind the org_id).
import { explainReasons } from '../../../scoring/reasons'
import { verdictFor } from '../../../scoring/service'
import type { Signal } from '../../../scoring/signals'
import type { Db, Tx } from '../../platform/db'
import { ApiError } from '../../platform/errors'
import { getThresholds, type VerdictThresholds } from '../thresholds'
import * as repo from './repo'
import { currentResult } from './service'

const iso = (d: Date | null) => d?.toISOString() ?? null
const num = (v: string | number | null) => (v === null ? null : Number(v))

export type SessionSummary = ReturnType<typeof toSummary>

function toSummary(row: repo.SummaryRow, signals?: readonly Signal[]) {
  return {
    sessionId: row.session_id,
    hcs: num(row.hcs),
    m3Score: num(row.m3_score),
    verdict: row.verdict,
    reasons: explainReasons(row.reasons, signals),
    signals: row.signal_count,
    batches: row.batch_count,
    firstSeenAt: row.first_seen_at.toISOString(),
    lastSeenAt: row.last_batch_at.toISOString(),
    scoredAt: iso(row.scored_at),
    modelVersion: row.model_version,
    label: row.label,
    labelNote: row.label_note,
    labeledAt: iso(row.labeled_at),
  }
}

// ---- the session list ----

const encodeCursor = (row: repo.SummaryRow) => Buffer.from(JSON.stringify([row.cursor_ts, row.session_id])).toString('base64url')

const badCursor = () =>
  new ApiError('validation_failed', 'after: not a cursor of listSessions; pass endCursor of the previous page', [
    { path: 'after', message: 'not a cursor of listSessions' },
  ])

function decodeCursor(cursor: string): { ts: string; id: string } {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    throw badCursor()
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    typeof parsed[0] !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(parsed[0]) ||
    Number.isNaN(Date.parse(parsed[0])) ||
    typeof parsed[1] !== 'string' ||
    !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(parsed[1])
  )
    throw badCursor()
  return { ts: parsed[0], id: parsed[1] }
}

export async function listSessions(
  db: Db,
  orgId: string,
  f: Omit<repo.ListFilter, 'after'> & { after: string | null }
): Promise<{ sessions: SessionSummary[]; endCursor: string | null; hasNextPage: boolean }> {
  const after = f.after === null ? null : decodeCursor(f.after)
  const rows = await db.tenant(orgId, (tx) => repo.listSessions(tx, orgId, { ...f, after }))
  const page = rows.slice(0, f.first)
  return {
    sessions: page.map((r) => toSummary(r)),
    endCursor: page.length ? encodeCursor(page[page.length - 1]!) : null,
    hasNextPage: rows.length > f.first,
  }
}

// ---- one session explained ----

export const MAX_TRAJECTORY = 1000
export const MAX_TIMELINE = 2000
const POSITION_KINDS = new Set(['mm', 'md', 'mu', 'c', 'ts', 'tm', 'te'])
const MOVE_KINDS = new Set(['mm', 'tm'])

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

/**
 * Indices of `items` kept when at most `max` may stay, in stored order: every item `keep` marks first
 * (evenly thinned themselves if they alone exceed `max`), then the others evenly spaced in what is left.
 */
export function thin<T>(items: readonly T[], max: number, keep: (item: T) => boolean): number[] {
  if (items.length <= max) return items.map((_, i) => i)
  const kept: number[] = []
  const rest: number[] = []
  for (let i = 0; i < items.length; i++) (keep(items[i]!) ? kept : rest).push(i)
  const spaced = (from: number[], n: number) => {
    if (n <= 0) return []
    if (from.length <= n) return from
    // n evenly spaced picks, first and last included
    return Array.from({ length: n }, (_, j) => from[n === 1 ? 0 : Math.round((j * (from.length - 1)) / (n - 1))]!)
  }
  const chosen = kept.length >= max ? spaced(kept, max) : [...kept, ...spaced(rest, max - kept.length)]
  return chosen.sort((a, b) => a - b)
}

export type SessionDetail = {
  session: SessionSummary
  durationMs: number
  trajectory: { t: number; x: number; y: number; kind: string }[]
  timeline: { t: number; kind: string; keyClass: string | null; dy: number | null }[]
  eventCounts: { kind: string; count: number }[]
}

/** Pointer trajectory, timeline and counts of one session's stored signals (keys as classes only). */
export function describeSignals(signals: readonly Signal[]): Omit<SessionDetail, 'session'> {
  const counts = new Map<string, number>()
  let tMin = Number.POSITIVE_INFINITY
  let tMax = Number.NEGATIVE_INFINITY
  for (const s of signals) {
    counts.set(s.k, (counts.get(s.k) ?? 0) + 1)
    if (finite(s.t)) {
      tMin = Math.min(tMin, s.t)
      tMax = Math.max(tMax, s.t)
    }
  }
  const positions = signals.filter((s) => POSITION_KINDS.has(s.k) && finite(s.x) && finite(s.y) && finite(s.t))
  const trajectory = thin(positions, MAX_TRAJECTORY, (s) => !MOVE_KINDS.has(s.k)).map((i) => {
    const s = positions[i]!
    return { t: s.t, x: s.x!, y: s.y!, kind: s.k }
  })
  const timed = signals.filter((s) => finite(s.t))
  const timeline = thin(timed, MAX_TIMELINE, (s) => !MOVE_KINDS.has(s.k)).map((i) => {
    const s = timed[i]!
    return {
      t: s.t,
      kind: s.k,
      keyClass: (s.k === 'kd' || s.k === 'ku') && typeof s.kc === 'string' ? s.kc : null,
      dy: s.k === 's' && finite(s.dy) ? s.dy : null,
    }
  })
  return {
    durationMs: Number.isFinite(tMin) ? tMax - tMin : 0,
    trajectory,
    timeline,
    eventCounts: [...counts].map(([kind, count]) => ({ kind, count })).sort((a, b) => b.count - a.count || (a.kind < b.kind ? -1 : 1)),
  }
}

/** One session explained, or null (unknown, or another organization's). A stale score is computed first, as GET /v1/session does. */
export async function sessionDetail(db: Db, orgId: string, sessionId: string, now: Date): Promise<SessionDetail | null> {
  const result = await currentResult(db, orgId, sessionId, now)
  if (!result) return null
  const read = await db.tenant(orgId, async (tx) => {
    const [row, batches] = await Promise.all([repo.findSummary(tx, orgId, sessionId), repo.sessionBatches(tx, orgId, sessionId)])
    return { row, batches }
  })
  if (!read.row) return null
  const signals: Signal[] = []
  for (const batch of read.batches) if (batch) for (const s of batch) signals.push(s)
  return { session: toSummary(read.row, signals), ...describeSignals(signals) }
}

// ---- verdicts over time ----

const DAY_MS = 86_400_000

export async function verdictStats(db: Db, orgId: string, days: number, now: Date) {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const from = new Date(today - (days - 1) * DAY_MS)
  const to = new Date(today + DAY_MS)
  const stats = await db.tenant(orgId, (tx) => repo.verdictStats(tx, orgId, from, to))
  const byDay = new Map<
    string,
    { day: string; humanVerified: number; suspicious: number; bot: number; insufficientData: number; unscored: number }
  >()
  for (let d = from.getTime(); d < to.getTime(); d += DAY_MS) {
    const day = new Date(d).toISOString().slice(0, 10)
    byDay.set(day, { day, humanVerified: 0, suspicious: 0, bot: 0, insufficientData: 0, unscored: 0 })
  }
  let total = 0
  const field = { human_verified: 'humanVerified', suspicious: 'suspicious', bot: 'bot', insufficient_data: 'insufficientData' } as const
  const hcsHistogram = Array.from({ length: 10 }, (_, i) => ({ from: i * 10, to: i === 9 ? 100 : (i + 1) * 10, count: 0 }))
  for (const r of stats.scored) {
    const entry = byDay.get(r.day)
    const key = field[r.verdict as keyof typeof field]
    if (!entry || !key) continue
    entry[key] += r.n
    hcsHistogram[r.bucket]!.count += r.n
    total += r.n
  }
  for (const r of stats.unscored) {
    const entry = byDay.get(r.day)
    if (!entry) continue
    entry.unscored += r.n
    total += r.n
  }
  return { days: [...byDay.values()], hcsHistogram, total }
}

// ---- labels ----

export async function labelSession(
  db: Db,
  orgId: string,
  l: { sessionId: string; label: 'human' | 'bot'; note: string | null; by: string; now: Date }
): Promise<repo.LabelRow> {
  const row = await db.tenant(orgId, (tx) => repo.setLabel(tx, { orgId, ...l }))
  if (!row) throw new ApiError('not_found', 'no such session')
  return row
}

// ---- error rates and the threshold simulation ----

const Z95 = 1.959963984540054

/** Wilson score interval (95 %) of x successes in n; null when n = 0. */
export function wilson(x: number, n: number): { low: number; high: number } | null {
  if (n === 0) return null
  const p = x / n
  const z2 = Z95 * Z95
  const denom = 1 + z2 / n
  const centre = (p + z2 / (2 * n)) / denom
  const half = (Z95 / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) }
}

export type Rate = { count: number; total: number; share: number | null; low: number | null; high: number | null }

export function rate(count: number, total: number): Rate {
  const ci = wilson(count, total)
  return { count, total, share: total ? count / total : null, low: ci?.low ?? null, high: ci?.high ?? null }
}

type Counts = { humanVerified: number; suspicious: number; bot: number; insufficientData: number; unscored: number }
const zero = (): Counts => ({ humanVerified: 0, suspicious: 0, bot: 0, insufficientData: 0, unscored: 0 })
const FIELD = { human_verified: 'humanVerified', suspicious: 'suspicious', bot: 'bot', insufficient_data: 'insufficientData' } as const

/**
 * Re-verdicts every group from its stored hcs with verdictFor, exactly as the scorer would at
 * `thresholds`: a stored insufficient_data stays so (it depends on the evidence, not on hcs), an
 * unscored session stays unscored. Neither is judged, so neither counts in any rate's total.
 */
export function tally(groups: readonly repo.VerdictGroup[], thresholds: VerdictThresholds) {
  const verdicts = zero()
  const current = zero()
  const labelled = { human: 0, bot: 0 }
  const humans = { judged: 0, bot: 0, suspicious: 0 }
  const bots = { judged: 0, through: 0 }
  for (const g of groups) {
    if (g.label) labelled[g.label] += g.n
    if (g.verdict === null || g.hcs === null) {
      verdicts.unscored += g.n
      current.unscored += g.n
      continue
    }
    current[FIELD[g.verdict as keyof typeof FIELD] ?? 'unscored'] += g.n
    const v = verdictFor(Number(g.hcs), g.verdict !== 'insufficient_data', thresholds)
    verdicts[FIELD[v]] += g.n
    if (v === 'insufficient_data') continue
    if (g.label === 'human') {
      humans.judged += g.n
      if (v === 'bot') humans.bot += g.n
      if (v === 'suspicious') humans.suspicious += g.n
    } else if (g.label === 'bot') {
      bots.judged += g.n
      if (v === 'human_verified') bots.through += g.n
    }
  }
  const rates = {
    thresholds,
    labelledHumans: labelled.human,
    labelledBots: labelled.bot,
    humansCalledBot: rate(humans.bot, humans.judged),
    humansCalledSuspicious: rate(humans.suspicious, humans.judged),
    botsLetThrough: rate(bots.through, bots.judged),
  }
  return { rates, verdicts, current }
}

type Period = { from: Date | null; to: Date | null }

/** Error rates over the labelled sessions of the period, with the organization's current thresholds. */
export function errorRates(db: Db, orgId: string, p: Period) {
  return db.tenant(orgId, async (tx: Tx) => {
    const [thresholds, groups] = await Promise.all([getThresholds(tx, orgId), repo.verdictGroups(tx, orgId, p.from, p.to, true)])
    return tally(groups, thresholds).rates
  })
}

/** The same figures and the period's verdict counts as if `thresholds` had applied; writes nothing. */
export async function simulateThresholds(db: Db, orgId: string, thresholds: VerdictThresholds, p: Period) {
  return tally(await db.tenant(orgId, (tx) => repo.verdictGroups(tx, orgId, p.from, p.to, false)), thresholds)
}

// ---- export of labelled sessions ----

const EXPORT_PAGE = 50

/**
 * The organization's labelled sessions in the period as NDJSON lines, oldest first, read page by page
 * (each page its own short transaction) while the response streams, so memory stays bounded.
 */
export function exportLabelled(db: Db, orgId: string, p: Period): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let after: { ts: string; id: string } | null = null
  let done = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (done) return
      const page = await db.tenant(orgId, async (tx) => {
        const rows = await repo.labelledPage(tx, orgId, { ...p, after, limit: EXPORT_PAGE })
        return {
          rows,
          batches: await repo.batchesOf(
            tx,
            orgId,
            rows.map((r) => r.session_id)
          ),
        }
      })
      const lines: string[] = []
      for (const r of page.rows) {
        const signals: Signal[] = []
        for (const batch of page.batches.get(r.session_id) ?? []) if (batch) for (const s of batch) signals.push(s)
        lines.push(
          JSON.stringify({
            session_id: r.session_id,
            label: r.label,
            note: r.label_note,
            labeled_at: r.labeled_at.toISOString(),
            hcs: num(r.hcs),
            m3_score: num(r.m3_score),
            verdict: r.verdict,
            model_version: r.model_version,
            first_seen_at: r.first_seen_at.toISOString(),
            signals,
          })
        )
      }
      if (lines.length) controller.enqueue(encoder.encode(`${lines.join('\n')}\n`))
      if (page.rows.length < EXPORT_PAGE) {
        done = true
        controller.close()
        return
      }
      const last = page.rows[page.rows.length - 1]!
      after = { ts: last.cursor_ts, id: last.session_id }
    },
  })
}
