import type { Harness, SeededOrg } from '../helpers/harness'

/** `n` plausible pointer/keyboard events starting at t0 ms, strictly increasing t. */
export function makeSignals(n: number, t0 = 0, seed = 1): Record<string, unknown>[] {
  const kinds = ['mm', 'mm', 'mm', 'mm', 'md', 'mu', 'c', 'kd', 'ku', 's']
  return Array.from({ length: n }, (_, i) => {
    const k = kinds[i % kinds.length]!
    const event: Record<string, unknown> = { t: t0 + i * 16 + (i % 3), k }
    if (k === 'mm' || k === 'md' || k === 'mu' || k === 'c') {
      event.x = 100 + ((i * 37 * seed) % 800)
      event.y = 80 + ((i * 53 + seed) % 600)
    }
    if (k === 'kd' || k === 'ku') event.kc = 'char'
    if (k === 's') event.dy = 40 + (i % 5)
    return event
  })
}

export const FEATURES = Array.from({ length: 34 }, (_, i) => (i % 7) / 10)

export function makeBatch(h: Harness, overrides: Record<string, unknown> = {}) {
  return {
    session_id: crypto.randomUUID(),
    sdk_type: 'web',
    captured_at: h.clock.now().toISOString(),
    signals: makeSignals(50),
    features: FEATURES,
    ...overrides,
  }
}

export const withKey = (key: string) => ({ 'x-api-key': key })

export function ingest(h: Harness, key: string, body: unknown) {
  return h.json('POST', '/v1/ingest', { body, headers: withKey(key) })
}

/** POST /v1/ingest answered as the raw Response: status and timing, nothing parsed. */
export function postIngest(h: Harness, key: string, body: unknown): Promise<Response> {
  return h.app.handle(
    new Request('http://localhost/v1/ingest', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...withKey(key) },
      body: JSON.stringify(body),
    })
  )
}

/** Tests that send hundreds of batches lift the enterprise plan's per-minute limit, so no 429 interferes. */
export async function unlimitEnterprise(h: Harness): Promise<void> {
  await h.deps.db.sql`update plans set rate_limit_per_minute = null where plan_id = 'enterprise'`
}

/** Rows an organization has in each table ingest writes to. */
export async function rowCounts(h: Harness, org: SeededOrg | string) {
  const orgId = typeof org === 'string' ? org : org.orgId
  const sql = h.deps.db.sql
  const [row] = await sql<{ sessions: number; batches: number; used: number }[]>`
    select (select count(*) from sessions where org_id = ${orgId})::int as sessions,
           (select count(*) from session_batches where org_id = ${orgId})::int as batches,
           coalesce((select sum(sessions_used) from usage_counters where org_id = ${orgId}), 0)::int as used`
  return row!
}

/** Noon on the 15th of the current UTC month: far enough from a month boundary for 30-minute jumps. */
export function midMonth(): Date {
  const now = new Date()
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 15, 12))
}

export const SESSION_RESULT_KEYS = [
  'batches',
  'first_seen_at',
  'hcs',
  'label',
  'm3_score',
  'model_version',
  'reasons',
  'scored_at',
  'session_id',
  'signals',
  'verdict',
]
